package dev.spinel.client.internal;

import dev.spinel.protocol.RespValue;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;

import java.util.List;

/**
 * The pipeline handler of one channel: accumulates reads, decodes every complete reply and hands it
 * to its {@link Connection}. A protocol error closes the channel (the connection then reconnects).
 * For {@code rediss://} it sits on TLS, which it installs in front of itself when added.
 * Confined to the channel's event loop.
 */
final class ConnectionHandler extends ByteToMessageDecoder {
    private final Connection connection;

    ConnectionHandler(Connection connection) {
        this.connection = connection;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        TlsConnector.installBefore(ctx); // rediss://: TLS under this handler
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        RespDecoder decoder = connection.decoder();
        try {
            for (RespValue v; (v = decoder.decode(in)) != null; ) {
                connection.onFrame(v);
            }
        } finally {
            connection.completeAnswered();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        super.channelInactive(ctx);
        connection.onInactive(ctx.channel());
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        connection.onError(ctx.channel(), cause);
        ctx.close();
    }
}
