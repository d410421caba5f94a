package dev.spinel.server.durability;

import dev.spinel.server.config.ServerConfig;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.LockSupport;

/**
 * The {@code key-load-delay} pause, as Redis's debugDelay: before each key loaded from an RDB file and each
 * command replayed from the append-only log, a pause of that many microseconds; a negative value pauses
 * 1 µs once in that many keys on average. Tests use it to keep a server loading for a while.
 *
 * <p>Thread-safety: stateless; reads the parameter (volatile) on each call.
 */
public final class LoadDelay implements Runnable {
    private final ServerConfig config;

    public LoadDelay(ServerConfig config) {
        this.config = config;
    }

    /** Whether {@code key-load-delay} pauses loads now. */
    public boolean active() {
        return config.keyLoadDelay.value() != 0;
    }

    @Override
    public void run() {
        long micros = config.keyLoadDelay.value();
        if (micros == 0) {
            return;
        }
        if (micros < 0) {
            micros = ThreadLocalRandom.current().nextLong(-micros) == 0 ? 1 : 0;
        }
        if (micros > 0) {
            LockSupport.parkNanos(micros * 1000);
        }
    }
}
