package dev.spinel.grpc;

import dev.spinel.server.SpinelExtension;
import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import io.grpc.Server;
import io.grpc.protobuf.services.HealthStatusManager;
import io.netty.channel.EventLoopGroup;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * Starts the gRPC service with the server (found by {@link java.util.ServiceLoader}): the KV service,
 * the standard health service and server reflection, on {@code grpc-bind}:{@code grpc-port} (0: off).
 * The port is bound at once, but gRPC itself (its classes, Netty's HTTP/2 codec, protobuf: 5-8 MB of a
 * server's memory) is loaded on the first connection ({@link GrpcOnFirstConnection}). It shares the RESP
 * front end's Netty event loops and runs handlers directly on them; handlers never block (a write's reply
 * waits for the log in a callback, not on the loop). This class refers to gRPC's API only in
 * {@link Running}, so loading it loads none of gRPC.
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
        private final int port;
        /** Closed after the server: the loop of a service fed by {@link GrpcOnFirstConnection}; else null. */
        private final EventLoopGroup acceptLoop;
        /** The fast unary path's calls (tests count what it served); null when it is off. */
        final FastUnaryCalls fast;

        Running(Server server, HealthStatusManager health, SpinelServer spinel, KvStore store, int port,
                EventLoopGroup acceptLoop, FastUnaryCalls fast) {
            this.server = server;
            this.health = health;
            this.spinel = spinel;
            this.store = store;
            this.port = port;
            this.acceptLoop = acceptLoop;
            this.fast = fast;
        }

        public int port() {
            return port;
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
            if (acceptLoop != null) {
                acceptLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
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
        return GrpcOnFirstConnection.listen(spinel, new InetSocketAddress(config.grpcBind.value(), port));
    }

    /**
     * Starts the service on {@code address} (port 0 there: an ephemeral port) at once, listening itself (tests, the
     * gRPC load runner). The server's own start ({@link #start(SpinelServer)}) loads gRPC on its first connection.
     */
    public static Running start(SpinelServer spinel, InetSocketAddress address) throws IOException {
        return GrpcService.start(spinel, address);
    }
}
