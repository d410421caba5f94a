package dev.spinel.server.replication;

import dev.spinel.protocol.Args;
import dev.spinel.server.config.ConfigException;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.RedisError;
import java.nio.charset.StandardCharsets;

/**
 * The replication commands: ROLE, WAIT, REPLICAOF/SLAVEOF, FAILOVER, and the master side's SYNC, PSYNC and
 * REPLCONF, which a replica sends on its own client connection. Argument checks and error texts are
 * Redis 7.0.15's; the work is {@link Replication}'s.
 *
 * <p>Thread-safety: stateless; {@link Replication} is thread-safe.
 */
public final class ReplicationCommands {
    private static final RedisError TIMEOUT_NOT_INTEGER = new RedisError("ERR timeout is not an integer or out of range");
    private static final RedisError TIMEOUT_NEGATIVE = new RedisError("ERR timeout is negative");
    private static final RedisError NOT_INTEGER = new RedisError("ERR value is not an integer or out of range");
    private static final RedisError INVALID_PORT = new RedisError("ERR Invalid master port");

    private ReplicationCommands() {
    }

    public static void register(CommandTable t, Replication r) {
        t.register("role", (s, a) -> ReplicationInfo.role(r, s));
        t.register("wait", (s, a) -> waitForReplicas(r, s, a));
        t.register("replicaof", (s, a) -> replicaof(r, s, a));
        t.register("slaveof", (s, a) -> replicaof(r, s, a));
        t.register("sync", (s, a) -> r.handshake().sync(s, a, false));
        t.register("psync", (s, a) -> r.handshake().sync(s, a, true));
        t.register("replconf", r.handshake()::replconf);
        t.register("failover", r.failoverState()::command);
    }

    // REPLICAOF host port | REPLICAOF NO ONE (and SLAVEOF, its old name)
    private static void replicaof(Replication r, Session s, Args a) {
        if (s.engine().config().clusterEnabled.value()) {
            throw new RedisError("ERR REPLICAOF not allowed in cluster mode.");
        }
        if (a.is(1, "NO") && a.is(2, "ONE")) {
            r.promote();
            configured(s, "");
            s.out().ok();
            return;
        }
        long port;
        try {
            port = a.parseLong(2);
        } catch (NumberFormatException e) {
            throw INVALID_PORT;
        }
        if (port < 0 || port > 65535) {
            throw INVALID_PORT;
        }
        String host = a.string(1);
        MasterLink ml = r.masterLink();
        if (ml != null && ml.host().equalsIgnoreCase(host) && ml.port() == port) {
            s.out().simple("OK Already connected to specified master");
            return;
        }
        r.replicaOf(host, (int) port);
        configured(s, host + " " + port);
        s.out().ok();
    }

    /** The role goes into the configuration too, so CONFIG REWRITE writes {@code replicaof host port} (or none), as Redis. */
    private static void configured(Session s, String replicaof) {
        try {
            s.engine().config().replicaof.set(replicaof);
        } catch (ConfigException e) {
            throw new IllegalStateException(e); // a host and port REPLICAOF accepted are a valid value
        }
    }

    private static final byte[] GETACK = "*3\r\n$8\r\nREPLCONF\r\n$6\r\nGETACK\r\n$1\r\n*\r\n".getBytes(StandardCharsets.US_ASCII);

    // WAIT numreplicas timeout: replicas whose acknowledged offset reached this client's writes
    private static void waitForReplicas(Replication r, Session s, Args a) {
        long wanted;
        try {
            wanted = a.parseLong(1);
        } catch (NumberFormatException e) {
            throw NOT_INTEGER;
        }
        long timeout;
        try {
            timeout = a.parseLong(2);
        } catch (NumberFormatException e) {
            throw TIMEOUT_NOT_INTEGER;
        }
        if (timeout < 0) {
            throw TIMEOUT_NEGATIVE;
        }
        if (r.isReplica()) {
            throw new RedisError("ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a replica is configured to be writable (which is not the default) writes to replicas are just local and are not propagated.");
        }
        if (!r.waits().await(s, r.offset(), wanted, timeout)) {
            return; // answered at once
        }
        ReplicationStream st = r.stream();
        if (st != null && !r.replicas().isEmpty()) {
            st.appendRaw(GETACK); // as Redis's replicationRequestAckFromSlaves
        }
    }
}
