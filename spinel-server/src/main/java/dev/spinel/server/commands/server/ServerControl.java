package dev.spinel.server.commands.server;

import dev.spinel.server.cluster.ClusterMode;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.durability.Persistence;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.migrate.MigrateSockets;
import dev.spinel.server.replication.Replication;
import dev.spinel.server.replication.ShutdownWait;
import dev.spinel.server.scripting.Scripting;

/**
 * What the command families may see of the running server, given to them at registration: the
 * parts they use and nothing of its start-up, listeners or extensions. {@code SpinelServer}
 * implements it; commands never name {@code SpinelServer} (that would be a package cycle).
 *
 * <p>Thread-safety: every method may be called from any thread once the server is started.
 */
public interface ServerControl {
    ServerConfig config();

    Engine engine();

    /** Snapshots and the append-only file: SAVE, BGSAVE, INFO persistence, the save at SHUTDOWN. */
    Persistence persistence();

    /** Replication: INFO replication, ROLE, REPLICAOF, WAIT (docs/replication.md). */
    Replication replication();

    /** Cluster mode's state, or null when cluster-enabled is off. */
    ClusterMode cluster();

    /** The plain RESP port; 0 when there is none. */
    int port();

    /** The event-loop transport, as INFO's {@code multiplexing_api} names it (epoll, io_uring, nio). */
    String multiplexingApi();

    /** EVAL's scripts cache, the function libraries and the Lua runner. */
    Scripting scripting();

    /** MIGRATE's cached connections to its targets (INFO's migrate_cached_sockets). */
    MigrateSockets migrateSockets();

    /** SHUTDOWN's wait for the replicas (shutdown-timeout) and SHUTDOWN ABORT. */
    ShutdownWait shutdownWait();

    /**
     * DEBUG SLEEP: holds every event loop but {@code callerLoop} (the server answers no one, as Redis while it
     * sleeps) for at most {@code maxMillis}; returns once they are held, with the action that releases them.
     */
    Runnable holdOtherLoops(Object callerLoop, long maxMillis);

    /** Stops the server from a command (SHUTDOWN); returns at once. */
    void shutdownAsync();
}
