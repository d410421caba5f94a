package dev.spinel.grpc;

import dev.spinel.grpc.v1.KVGrpc;
import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.netty.NettyChannelBuilder;
import redis.clients.jedis.Jedis;

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/** An in-process Spinel with the gRPC service on ephemeral ports, plus a channel and a Jedis to it. */
final class GrpcTestServer implements AutoCloseable {
    final SpinelServer spinel;
    final GrpcFrontEnd.Running grpc;
    final ManagedChannel channel;

    GrpcTestServer(String... config) throws Exception {
        this(GrpcService.FAST_UNARY, config);
    }

    /** A server whose unary KV calls take the fast path ({@link FastUnaryListener}) or only grpc-java's. */
    GrpcTestServer(boolean fastUnary, String... config) throws Exception {
        ServerConfig c = ServerConfig.defaults().with("port", "0").with("grpc-port", "0");
        for (int i = 0; i + 1 < config.length; i += 2) {
            if (config[i].equals("rename-command")) { // a directive, not a parameter: "from to" as a config line
                c.load("rename-command " + config[i + 1]);
            } else {
                c = c.with(config[i], config[i + 1]);
            }
        }
        spinel = SpinelServer.start(c);
        grpc = GrpcService.start(spinel, new InetSocketAddress("127.0.0.1", 0), fastUnary);
        channel = NettyChannelBuilder.forAddress("127.0.0.1", grpc.port()).usePlaintext()
                .maxInboundMessageSize(64 << 20).build();
    }

    /**
     * A blocking stub whose calls each get 30 s (a stub's own {@code withDeadlineAfter} is one deadline from
     * its creation, which a test class sharing the stub outlives on a loaded machine); a deadline the test
     * sets on the stub is kept.
     */
    KVGrpc.KVBlockingStub blocking() {
        return KVGrpc.newBlockingStub(channel).withInterceptors(PER_CALL_DEADLINE);
    }

    /**
     * Gives each call without a deadline of its own 30 s: a bound for a hang, not for speed (the channel's first
     * call also connects, which took more than 5 s on the loaded CI machine).
     */
    static final ClientInterceptor PER_CALL_DEADLINE = new ClientInterceptor() {
        @Override
        public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
            return next.newCall(method, options.getDeadline() != null ? options : options.withDeadlineAfter(30, TimeUnit.SECONDS));
        }
    };

    KVGrpc.KVStub async() {
        return KVGrpc.newStub(channel);
    }

    Jedis jedis() {
        // Jedis's default 2 s read timeout: the first fsync'ed write of a cold JVM took longer on a loaded CI machine
        return new Jedis("127.0.0.1", spinel.port(), 30_000);
    }

    @Override
    public void close() {
        channel.shutdownNow();
        grpc.close();
        spinel.close();
    }
}
