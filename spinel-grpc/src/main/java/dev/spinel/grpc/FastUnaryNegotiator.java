package dev.spinel.grpc;

import io.grpc.netty.GrpcHttp2ConnectionHandler;
import io.grpc.netty.InternalProtocolNegotiator;
import io.grpc.netty.InternalProtocolNegotiators;
import io.netty.channel.ChannelHandler;
import io.netty.handler.codec.http2.Http2ConnectionDecoder;
import io.netty.util.AsciiString;

/**
 * Plaintext gRPC (what the service has always spoken: it has no TLS) with the fast unary path in front of each
 * connection's grpc-java frame listener: grpc-netty hands every new connection's HTTP/2 handler to its protocol
 * negotiator before the connection reads anything, which is where {@link FastUnaryListener} is put between the
 * handler's frame decoder and grpc-java's listener. The rest is grpc-java's plaintext negotiator.
 *
 * <p>Thread-safety: stateless beyond the shared, thread-safe {@link FastUnaryCalls}; called on any event loop.
 */
final class FastUnaryNegotiator implements InternalProtocolNegotiator.ProtocolNegotiator {
    private final InternalProtocolNegotiator.ProtocolNegotiator plaintext = InternalProtocolNegotiators.serverPlaintext();
    private final FastUnaryCalls calls;

    FastUnaryNegotiator(FastUnaryCalls calls) {
        this.calls = calls;
    }

    @Override
    public AsciiString scheme() {
        return plaintext.scheme();
    }

    @Override
    public ChannelHandler newHandler(GrpcHttp2ConnectionHandler grpcHandler) {
        Http2ConnectionDecoder decoder = grpcHandler.decoder();
        decoder.frameListener(new FastUnaryListener(decoder.frameListener(), grpcHandler, calls));
        return plaintext.newHandler(grpcHandler);
    }

    @Override
    public void close() {
        plaintext.close();
    }
}
