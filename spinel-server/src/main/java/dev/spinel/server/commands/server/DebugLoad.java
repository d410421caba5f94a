package dev.spinel.server.commands.server;

import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.engine.BlockedOperation;
import dev.spinel.server.engine.Blocking;
import dev.spinel.server.engine.ServeContext;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.RedisError;

import java.util.function.Supplier;

/**
 * DEBUG RELOAD and DEBUG LOADAOF run on a thread of their own while their client waits (blocked, as a SHUTDOWN
 * waiting for replicas): Redis serves other clients during such a load, with {@code -LOADING} for what lacks the
 * {@code loading} flag, and so must every event loop here, the caller's included, rather than leave the clients
 * that share the caller's loop unanswered until the load ends. Inside MULTI (a client that may not block) the
 * load runs in place, as before.
 *
 * <p>Thread-safety: stateless; the load runs on a new thread, the reply is delivered through {@link Blocking}.
 */
final class DebugLoad {
    private static final BlockedOperation WAITING = new BlockedOperation() {
        @Override
        public boolean tryServe(ServeContext ctx) {
            return false; // only the end of the load answers
        }

        @Override
        public void timeoutReply(ReplyBuffer out) {
            out.error("ERR the load was interrupted"); // not CLIENT UNBLOCK's (below): a role change or a disconnect
        }

        @Override
        public boolean clientUnblockable() {
            return false; // Redis loads in place, its client is not blocked: CLIENT UNBLOCK answers 0
        }
    };

    private DebugLoad() {
    }

    /** Runs {@code load} (null on success, else the error text) and answers {@code +OK} or the error. */
    static void run(Session s, Supplier<String> load) {
        if (s.denyBlocking()) {
            String error = load.get();
            if (error != null) {
                throw new RedisError(error);
            }
            s.out().ok();
            return;
        }
        Blocking blocking = s.engine().blocking();
        long id = s.id();
        blocking.block(s, s.db(), new byte[0][], 0, WAITING);
        Thread.ofPlatform().name("spinel-debug-load").daemon().start(() -> {
            String error;
            try {
                error = load.get();
            } catch (RuntimeException e) {
                error = "ERR " + e.getMessage();
            }
            if (error == null) {
                blocking.unblockWithOk(id);
            } else {
                blocking.unblockWithError(id, error);
            }
        });
    }
}
