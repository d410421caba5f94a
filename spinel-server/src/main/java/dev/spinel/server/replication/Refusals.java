package dev.spinel.server.replication;

import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.engine.ports.ReplicationGate;

import java.util.Collection;

/**
 * Replication's refusals of client commands, with Redis 7.0's texts: NOREPLICAS on a master with fewer
 * good replicas (online, acknowledged within {@code min-replicas-max-lag} seconds) than
 * {@code min-replicas-to-write}; READONLY for writes on a replica while {@code replica-read-only}; MASTERDOWN
 * for commands without the {@code stale} flag on a replica whose link is down while
 * {@code replica-serve-stale-data no}. The session applying the master's stream is never refused. The good
 * replicas are counted by the cron and when a replica comes or goes (Redis's refreshGoodSlavesCount), so
 * a write reads one volatile.
 *
 * <p>Thread-safety: thread-safe; {@link #refusal} runs on every event loop.
 */
final class Refusals implements ReplicationGate {
    static final String NOREPLICAS = "NOREPLICAS Not enough good replicas to write.";
    static final String READONLY = "READONLY You can't write against a read only replica.";
    static final String MASTERDOWN = "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.";

    private final Replication replication;
    private final ServerConfig config;
    private final Collection<ReplicaLink> replicas;
    private volatile int good;

    Refusals(Replication replication, ServerConfig config, Collection<ReplicaLink> replicas) {
        this.replication = replication;
        this.config = config;
        this.replicas = replicas;
    }

    /** Installs this gate while it can refuse something (a replica, or min-replicas-to-write set), else none. */
    void install(Engine engine) {
        refresh();
        boolean needed = replication.isReplica() || (config.minReplicasToWrite.value() > 0 && config.minReplicasMaxLag.value() > 0);
        engine.hooks().replicationGate(needed ? this : null);
    }

    /** Recounts the good replicas. */
    void refresh() {
        long maxLag = config.minReplicasMaxLag.value();
        long now = System.currentTimeMillis() / 1000;
        int n = 0;
        for (ReplicaLink l : replicas) {
            if (l.online() && now - l.ackTime / 1000 <= maxLag) {
                n++;
            }
        }
        good = n;
    }

    int goodReplicas() {
        return good;
    }

    @Override
    public String refusal(boolean fromMaster, boolean write, boolean denyStale) {
        MasterLink ml = replication.masterLink();
        if (ml == null) {
            long min = config.minReplicasToWrite.value();
            return write && min > 0 && config.minReplicasMaxLag.value() > 0 && good < min ? NOREPLICAS : null;
        }
        if (fromMaster) {
            return null;
        }
        if (write && config.replicaReadOnly.value()) {
            return READONLY;
        }
        if (denyStale && !ml.connected() && !config.replicaServeStaleData.value()) {
            return MASTERDOWN;
        }
        return null;
    }

    @Override
    public boolean stale() {
        MasterLink ml = replication.masterLink();
        return ml != null && !ml.connected() && !config.replicaServeStaleData.value();
    }
}
