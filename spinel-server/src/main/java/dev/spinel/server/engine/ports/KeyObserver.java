package dev.spinel.server.engine.ports;

import dev.spinel.server.engine.EmbeddedClient;
import dev.spinel.server.engine.EngineHooks;

/**
 * Sees every key a command changed, for front ends other than RESP that keep state per key (the gRPC
 * service's versions and Watch streams). Installed with {@link EngineHooks#keyObserver}; when none is
 * installed, or {@link #active()} is false, commands pay nothing for it.
 *
 * <p>Thread-safety: called from any event loop, concurrently; implementations must be thread-safe.
 * {@link #keyExpired} is called with the key's stripe lock held; the others right after the command,
 * possibly with its stripes still held (logged writes, EXEC, scripts, {@link EmbeddedClient} units), so
 * an implementation may take a key's stripe (they are reentrant) but must not wait for another thread.
 */
public interface KeyObserver {
    /** Whether the observer wants events now (cheap: read on every write command). */
    boolean active();

    /** A command wrote {@code key} of database {@code db} (set, changed, or deleted it). */
    void keyChanged(int db, byte[] key);

    /** The key's time to live ran out and it was removed. */
    void keyExpired(int db, byte[] key);

    /** Every key of database {@code db} changed at once (FLUSHDB, SWAPDB; -1: every database, FLUSHALL). */
    void databaseChanged(int db);
}
