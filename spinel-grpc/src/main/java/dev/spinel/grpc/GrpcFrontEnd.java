package dev.spinel.grpc;

import dev.spinel.server.SpinelExtension;
import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.log.Log;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.net.InetSocketAddress;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Starts the gRPC service with the server (found by {@link java.util.ServiceLoader}): the KV service,
 * the standard health service and server reflection, on {@code grpc-bind}:{@code grpc-port} (0: off).
 * It shares the RESP front end's Netty event loops (accept and I/O) and runs handlers directly on
 * them, so it adds no thread of its own; handlers never block (a write's reply waits for the log in a
 * callback, not on the loop).
 *
 * <p>Thread-safety: {@link #start} once per server; the returned handle is closed once.
 */
public final class GrpcFrontEnd implements SpinelExtension {
    /** The running service, for tests and the gRPC load runner (spinel-bench). */
    public static final class Running implements AutoCloseable {
        private final Server server;
        private final HealthStatusManager health;
        private final SpinelServer spinel;
        /** For tests in this package. */
        final KvStore store;

        Running(Server server, HealthStatusManager health, SpinelServer spinel, KvStore store) {
            this.server = server;
            this.health = health;
            this.spinel = spinel;
            this.store = store;
        }

        public int port() {
            return server.getPort();
        }

        @Override
        public void close() {
            spinel.engine().hooks().keyObserver(null);
            health.enterTerminalState();
            server.shutdown();
            try {
                if (!server.awaitTermination(2, TimeUnit.SECONDS)) {
                    server.shutdownNow();
                }
            } catch (InterruptedException e) {
                server.shutdownNow();
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public String toString() {
            return "gRPC service on port " + port();
        }
    }

    @Override
    public AutoCloseable start(SpinelServer spinel) throws Exception {
        ServerConfig config = spinel.config();
        int port = (int) config.grpcPort.value();
        if (port == 0) {
            return null;
        }
        return start(spinel, new InetSocketAddress(config.grpcBind.value(), port));
    }

    /**
     * The call counter on the server's metrics registry: registered once per server (a restarted service, as the
     * tests do, finds it there already and counts on).
     */
    private static synchronized CallMetrics callMetrics(SpinelServer spinel) {
        return METRICS.computeIfAbsent(spinel.metrics().registry(), CallMetrics::new);
    }

    /** Registries already holding the counter; weak, so a stopped server's registry is not kept. */
    private static final Map<PrometheusRegistry, CallMetrics> METRICS = new WeakHashMap<>();

    /** Starts the service on {@code address} (port 0 there: an ephemeral port). */
    public static Running start(SpinelServer spinel, InetSocketAddress address) throws java.io.IOException {
        ServerConfig config = spinel.config();
        KeyVersions versions = new KeyVersions();
        WatchHub hub = new WatchHub();
        KvStore store = new KvStore(spinel.engine(), versions, hub);
        store.client().onAclChange(hub::aclChanged); // open Watch streams lose what the ACL no longer allows
        HealthStatusManager health = new HealthStatusManager();
        health.setStatus("spinel.kv.v1.KV", io.grpc.health.v1.HealthCheckResponse.ServingStatus.SERVING);
        Server server = NettyServerBuilder.forAddress(address)
                .bossEventLoopGroup(spinel.eventLoops())
                .workerEventLoopGroup(spinel.eventLoops())
                .channelType(spinel.transport().serverChannel())
                .directExecutor()
                .maxInboundMessageSize((int) config.grpcMaxMessageSize.value())
                .addService(ServerInterceptors.intercept(MalformedRequests.guard(new KvService(store, spinel.eventLoops()).bindService()),
                        new AuthInterceptor(store.client())))
                .addService(health.getHealthService())
                .addService(ProtoReflectionServiceV1.newInstance())
                .intercept(callMetrics(spinel))
                .build()
                .start();
        spinel.engine().hooks().keyObserver(new ChangeFeed(store));
        Log.notice("gRPC service (spinel.kv.v1.KV) listening on " + address.getHostString() + ":" + server.getPort());
        return new Running(server, health, spinel, store);
    }
}
