package dev.spinel.server.net;

import dev.spinel.server.SpinelServer;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The connection's handler is the end of its pipeline's inbound path: it consumes each read and, after flushing
 * the batch's replies, does not pass the read-complete event on (a traversal to Netty's tail, which does nothing
 * with it, per read batch).
 */
class ReadCompleteEndsHereTest {
    @Test
    void readCompleteIsNotPassedOnAfterTheRepliesAreSent() {
        try (SpinelServer server = SpinelServer.startEphemeral()) {
            int[] seen = new int[2];
            ChannelInboundHandlerAdapter after = new ChannelInboundHandlerAdapter() {
                @Override
                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                    seen[0]++;
                }

                @Override
                public void channelReadComplete(ChannelHandlerContext ctx) {
                    seen[1]++;
                }
            };
            EmbeddedChannel ch = new EmbeddedChannel(new RespConnectionHandler(server.engine(), false), after);
            try {
                ch.writeInbound(Unpooled.copiedBuffer("PING\r\n", StandardCharsets.US_ASCII));
                ByteBuf reply = ch.readOutbound();
                assertEquals("+PONG\r\n", reply.toString(StandardCharsets.US_ASCII));
                reply.release();
                assertEquals(0, seen[0], "reads are consumed");
                assertEquals(0, seen[1], "read complete ends at the connection's handler");
            } finally {
                ch.close();
            }
        }
    }
}
