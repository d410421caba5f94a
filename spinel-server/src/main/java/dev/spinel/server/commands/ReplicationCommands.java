package dev.spinel.server.commands;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.blocking.BlockedOperation;
import dev.spinel.server.blocking.ServeContext;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.RedisError;
import dev.spinel.server.engine.Session;

/**
 * The replication commands a standalone Redis answers, for a server that is always a master without
 * replicas (Spinel has no replication): ROLE, WAIT, REPLICAOF and SLAVEOF. Clients call ROLE to find out
 * where they are connected and WAIT to wait for durability on replicas; both answer as a Redis master
 * with no replica attached does. REPLICAOF (SLAVEOF, its old name) NO ONE answers as a master does;
 * REPLICAOF host port checks its arguments as Redis does and is then refused (no replication).
 *
 * <p>Thread-safety: stateless; WAIT's blocking goes through the engine's {@code Blocking}.
 */
final class ReplicationCommands {
    private static final byte[][] NO_KEYS = new byte[0][];
    private static final RedisError TIMEOUT_NOT_INTEGER = new RedisError("ERR timeout is not an integer or out of range");
    private static final RedisError TIMEOUT_NEGATIVE = new RedisError("ERR timeout is negative");
    private static final RedisError INVALID_PORT = new RedisError("ERR Invalid master port");
    private static final RedisError NO_REPLICATION = new RedisError("ERR Spinel has no replication: it can only be a master (REPLICAOF NO ONE)");

    private ReplicationCommands() {
    }

    static void register(CommandTable t) {
        t.register("role", ReplicationCommands::role);
        t.register("wait", ReplicationCommands::waitForReplicas);
        t.register("replicaof", ReplicationCommands::replicaof);
        t.register("slaveof", ReplicationCommands::replicaof);
    }

    // REPLICAOF host port | REPLICAOF NO ONE (and SLAVEOF, its old name)
    static void replicaof(Session s, Args a) {
        if (s.engine().config().clusterEnabled.value()) {
            throw new RedisError("ERR REPLICAOF not allowed in cluster mode.");
        }
        if (a.is(1, "NO") && a.is(2, "ONE")) {
            s.out().ok(); // already a master, as Redis answers when it is one
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
        throw NO_REPLICATION;
    }

    // ROLE: a master, replication offset 0 (no backlog is ever created without replicas), no replicas
    static void role(Session s, Args a) {
        s.out().array(3).bulk("master").integer(0).array(0);
    }

    // WAIT numreplicas timeout
    static void waitForReplicas(Session s, Args a) {
        long wanted = Lists.parseLong(a, 1);
        long timeout = Lists.parseLongOr(a, 2, TIMEOUT_NOT_INTEGER);
        if (timeout < 0) {
            throw TIMEOUT_NEGATIVE;
        }
        if (wanted <= 0) {
            s.out().integer(0); // the 0 acknowledging replicas already satisfy it
            return;
        }
        // No replica will ever acknowledge: like Redis, wait out the timeout (0: until unblocked or
        // disconnected), then answer how many acknowledged. Inside MULTI this answers at once.
        s.engine().blocking().block(s, s.db(), NO_KEYS, timeout, NoReplicas.INSTANCE);
    }

    /** A WAIT that no key can serve: it ends by its timeout, CLIENT UNBLOCK or a disconnect. */
    private enum NoReplicas implements BlockedOperation {
        INSTANCE;

        @Override
        public boolean tryServe(ServeContext ctx) {
            return false;
        }

        @Override
        public void timeoutReply(ReplyBuffer out) {
            out.integer(0);
        }
    }
}
