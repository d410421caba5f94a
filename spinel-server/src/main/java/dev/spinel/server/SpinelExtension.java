package dev.spinel.server;

import java.util.ServiceLoader;

/**
 * A front end started and stopped with the server, found on the class path with
 * {@link ServiceLoader} (file {@code META-INF/services/dev.spinel.server.SpinelExtension}).
 * This is how the gRPC service ({@code spinel-grpc}) runs inside {@code spinel-server} without the
 * server depending on it.
 *
 * <p>Thread-safety: {@link #start} is called once, by the thread that starts the server.
 */
public interface SpinelExtension {
    /**
     * Starts the extension for {@code server} (already listening); returns what stops it, or null when
     * the configuration leaves it disabled. A failure aborts the server's start.
     */
    AutoCloseable start(SpinelServer server) throws Exception;
}
