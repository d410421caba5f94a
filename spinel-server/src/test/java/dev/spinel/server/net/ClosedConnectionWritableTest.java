package dev.spinel.server.net;

import dev.spinel.server.SpinelServer;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A closed connection never makes a writer wait: outputWritable() and whenWritable() agree on it. A replica link
 * pumps while its connection is writable and otherwise asks whenWritable() to call it again; on a connection that had
 * closed, whenWritable() ran it at once while outputWritable() said no, and the two called each other until the
 * stack overflowed (seen in Redis's Sentinel suite, 02-slaves-reconf, a killed replica; the link's task died).
 */
class ClosedConnectionWritableTest {
    @Test
    void aClosedConnectionIsWritableForWhoWaitsOnIt() {
        try (SpinelServer server = SpinelServer.startEphemeral()) {
            RespConnectionHandler handler = new RespConnectionHandler(server.engine(), false);
            EmbeddedChannel ch = new EmbeddedChannel(handler);
            ch.writeInbound(Unpooled.copiedBuffer("PING\r\n", StandardCharsets.US_ASCII));
            ByteBuf reply = ch.readOutbound();
            reply.release();
            ch.close();
            int[] runs = {0};
            Runnable[] pump = new Runnable[1];
            pump[0] = () -> { // what ReplicaLink.pump does with a full connection
                if (++runs[0] > 100) {
                    throw new AssertionError("whenWritable and outputWritable disagree on a closed connection");
                }
                if (!handler.outputWritable()) {
                    handler.whenWritable(pump[0]);
                }
            };
            handler.whenWritable(pump[0]);
            assertEquals(1, runs[0]);
            assertTrue(handler.outputWritable());
        }
    }
}
