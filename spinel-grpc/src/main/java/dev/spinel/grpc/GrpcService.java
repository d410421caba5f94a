package dev.spinel.grpc;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.log.Log;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalServerChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * Builds and starts the gRPC server: the KV service, health and reflection, call metrics, the engine's change feed.
 * Either listening itself ({@link #start}) or fed connections accepted by {@link GrpcOnFirstConnection}
 * ({@link #startFed}). The only class of this module's start-up path that links against gRPC's classes.
 *
 * <p>Thread-safety: each call starts its own server; {@link #callMetrics} is synchronized.
 */
final class GrpcService {
    /** Registries already holding the counter; weak, so a stopped server's registry is not kept. */
    private static final Map<PrometheusRegistry, CallMetrics> METRICS = new WeakHashMap<>();

    private GrpcService() {
    }

    /** A service fed connections accepted elsewhere: the server channel to hand them to, and the service. */
    record Fed(ServerChannel acceptor, GrpcFrontEnd.Running running) {
    }

    /**
     * Whether unary KV calls take the fast path ({@link FastUnaryListener}): on unless the JVM runs with
     * {@code -Dspinel.grpc.fast-unary=false} (for comparing both paths in one build).
     */
    static final boolean FAST_UNARY = !"false".equals(System.getProperty("spinel.grpc.fast-unary"));

    /** Starts the service listening on {@code address} (port 0 there: an ephemeral port). */
    static GrpcFrontEnd.Running start(SpinelServer spinel, InetSocketAddress address) throws IOException {
        return start(spinel, address, FAST_UNARY);
    }

    /** {@link #start(SpinelServer, InetSocketAddress)} with the fast unary path on or off (tests compare both). */
    static GrpcFrontEnd.Running start(SpinelServer spinel, InetSocketAddress address, boolean fastUnary) throws IOException {
        Parts p = new Parts(spinel, fastUnary);
        Server server = p.configure(NettyServerBuilder.forAddress(address)
                .bossEventLoopGroup(spinel.eventLoops())
                .channelType(spinel.transport().serverChannel())).build().start();
        spinel.engine().hooks().keyObserver(new ChangeFeed(p.store));
        Log.notice("gRPC service (spinel.kv.v1.KV) listening on " + address.getHostString() + ":" + server.getPort());
        return new GrpcFrontEnd.Running(server, p.health, spinel, p.store, server.getPort(), null, p.fast);
    }

    /**
     * Starts the service without a socket of its own: its server channel is an in-process one that accepts nothing
     * by itself; connections accepted on {@code port} by {@link GrpcOnFirstConnection} are fired into that channel's
     * pipeline, where Netty's bootstrap acceptor registers each on Spinel's loops with gRPC's handlers, exactly as
     * a connection gRPC had accepted. Its accept "loop" is one thread that only ever runs those hand-overs.
     */
    static Fed startFed(SpinelServer spinel, int port) throws IOException {
        Parts p = new Parts(spinel, FAST_UNARY);
        DefaultEventLoopGroup acceptLoop = new DefaultEventLoopGroup(1, new DefaultThreadFactory("spinel-grpc-accept", true));
        LocalServerChannel[] made = new LocalServerChannel[1];
        Server server;
        try {
            server = p.configure(NettyServerBuilder.forAddress(new LocalAddress("spinel-grpc-" + System.identityHashCode(p)))
                    .bossEventLoopGroup(acceptLoop)
                    .channelFactory(() -> made[0] = new LocalServerChannel())).build().start();
        } catch (IOException | RuntimeException e) {
            acceptLoop.shutdownGracefully();
            throw e;
        }
        spinel.engine().hooks().keyObserver(new ChangeFeed(p.store));
        return new Fed(made[0], new GrpcFrontEnd.Running(server, p.health, spinel, p.store, port, acceptLoop, p.fast));
    }

    /** What both ways share: the store, health, and the builder's services and settings. */
    private static final class Parts {
        final SpinelServer spinel;
        final KvStore store;
        final HealthStatusManager health = new HealthStatusManager();
        final boolean fastUnary;
        /** The fast unary path's calls, once configured with it; else null. */
        FastUnaryCalls fast;

        Parts(SpinelServer spinel, boolean fastUnary) {
            this.spinel = spinel;
            this.fastUnary = fastUnary;
            this.store = new KvStore(spinel.engine(), new KeyVersions(), new WatchHub());
            store.client().onAclChange(store.hub()::aclChanged); // open Watch streams lose what the ACL no longer allows
            health.setStatus("spinel.kv.v1.KV", HealthCheckResponse.ServingStatus.SERVING);
        }

        NettyServerBuilder configure(NettyServerBuilder b) {
            ServerConfig config = spinel.config();
            int maxMessage = (int) config.grpcMaxMessageSize.value();
            if (fastUnary) { // plaintext, as without it (the service has no TLS), with the fast path on each connection
                fast = new FastUnaryCalls(store, callMetrics(spinel), maxMessage);
                b.protocolNegotiator(new FastUnaryNegotiator(fast));
            }
            return b.workerEventLoopGroup(spinel.eventLoops())
                    .directExecutor()
                    .maxInboundMessageSize(maxMessage)
                    .addService(ServerInterceptors.intercept(MalformedRequests.guard(new KvService(store, spinel.eventLoops()).bindService()),
                            new AuthInterceptor(store.client())))
                    .addService(health.getHealthService())
                    .addService(ProtoReflectionServiceV1.newInstance())
                    .intercept(callMetrics(spinel));
        }
    }

    /**
     * The call counter on the server's metrics registry: registered once per server (a restarted service, as the
     * tests do, finds it there already and counts on).
     */
    private static synchronized CallMetrics callMetrics(SpinelServer spinel) {
        return METRICS.computeIfAbsent(spinel.metrics().registry(), CallMetrics::new);
    }
}
