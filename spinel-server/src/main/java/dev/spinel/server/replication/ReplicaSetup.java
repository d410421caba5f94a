package dev.spinel.server.replication;

import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.net.ServerTls;

import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * What the server installs for the replica side of {@link Replication} before it starts: where it listens
 * and its TLS (the port a master is told with REPLCONF listening-port, the context a link to a master
 * connects with), and the step that runs after a full resync's RDB is loaded.
 *
 * <p>Thread-safety: volatile fields, installed once by the server's start-up and read by the master link.
 */
public final class ReplicaSetup {
    private final ServerConfig config;
    /** The port this server listens on, announced to a master with REPLCONF listening-port. */
    private volatile IntSupplier listeningPort;
    private volatile IntSupplier tlsPort;
    private volatile Supplier<ServerTls> tlsContext;
    /** Run by the replica side after a full resync loaded the master's RDB (the AOF rewrite); may be null. */
    private volatile Runnable afterFullSync;

    ReplicaSetup(ServerConfig config) {
        this.config = config;
    }

    /** Where this server listens (the bound port, not the configured one, which may be 0). */
    public void listeningPort(IntSupplier port) {
        this.listeningPort = port;
    }

    /** The TLS listener's bound port and context, for {@code tls-replication} (null context: TLS not configured). */
    public void tls(IntSupplier port, Supplier<ServerTls> context) {
        this.tlsPort = port;
        this.tlsContext = context;
    }

    /** The port a master is told (REPLCONF listening-port): the TLS one with tls-replication, as Redis. */
    int listeningPort() {
        IntSupplier t = tlsPort;
        if (config.tlsReplication.value() && t != null && t.getAsInt() > 0) {
            return t.getAsInt();
        }
        IntSupplier p = listeningPort;
        return p != null ? p.getAsInt() : (int) config.port.value();
    }

    /** The TLS context for a link to a master, or null when TLS is not configured. */
    ServerTls tlsContext() {
        Supplier<ServerTls> c = tlsContext;
        return c != null ? c.get() : null;
    }

    /**
     * What to do once a full resync's RDB is loaded, before the stream is applied: with {@code appendonly yes}
     * the log must start again from the new dataset (Redis's restartAOFAfterSYNC), which a rewrite does.
     */
    public void afterFullSync(Runnable r) {
        this.afterFullSync = r;
    }

    void fullSyncLoaded() {
        Runnable r = afterFullSync;
        if (r != null) {
            r.run();
        }
    }
}
