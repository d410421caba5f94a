package dev.spinel.server.engine;

import dev.spinel.protocol.Args;
import dev.spinel.server.errors.RedisError;

/**
 * The code of one command: reads its arguments, works on the keyspace under the stripe locks it
 * needs, and writes exactly one reply into {@code session.out()} (or throws {@link RedisError}
 * before writing anything). Runs on the connection's event loop; must not block.
 */
@FunctionalInterface
public interface CommandHandler {
    void execute(Session session, Args args);
}
