package dev.spinel.server.engine;

import java.util.List;

import dev.spinel.protocol.Args;

/**
 * Receives every command that changed data (its session's dirty count moved), for the append-only
 * log. The engine calls {@link #propagate} while holding the stripes of the command's keys (or every
 * stripe for keyless writes such as FLUSHALL), so the log order of writes to one key is the order in
 * which they were applied, and the propagator may read the keys' resulting state (absolute expiry
 * times, new values) to log the command deterministically.
 *
 * <p>Inside EXEC the engine already holds every stripe; {@link #execDone} closes the transaction so
 * the propagator can wrap its writes in MULTI/EXEC.
 *
 * <p>Thread-safety: called from every event loop concurrently.
 */
public interface Propagator {
    /** A write's targets ({@link Session#propagateTargets()}), Redis's PROPAGATE_AOF and PROPAGATE_REPL. */
    int TO_AOF = 1;
    int TO_REPLICAS = 2;
    int TO_ALL = TO_AOF | TO_REPLICAS;

    void propagate(Session session, Command cmd, Args args);

    /**
     * Logs a write done outside any command: a blocked client served by another client's push (BLPOP
     * served → LPOP), a key evicted by maxmemory (→ DEL). Called with the stripes of the keys changed
     * still held.
     */
    default void propagateEffect(int db, byte[][] argv) {
    }

    /**
     * Logs what a blocked client served by another client's write did, when that is several commands
     * (a served XREADGROUP's XCLAIMs): one MULTI/EXEC block, as Redis propagates them, at a position
     * recorded in the served client's session (its reply waits for it). Stripes still held.
     */
    default void propagateServed(Session served, int db, List<byte[][]> commands) {
        for (byte[][] argv : commands) {
            propagateEffect(db, argv);
        }
    }

    /** End of an EXEC (its stripes still held). */
    void execDone(Session session);

    /**
     * True when log position {@code position} is safe enough for its replies to be sent: on disk under
     * {@code appendfsync always}, handed to the OS otherwise.
     */
    boolean acknowledged(long position);

    /** Runs {@code task} (on the log's thread) once {@link #acknowledged}{@code (position)} holds. */
    void whenAcknowledged(long position, Runnable task);

    /**
     * Lets the calling event loop write what the log has pending itself, as Redis writes its AOF buffer
     * before it sends replies, when that alone acknowledges {@code position} (not under
     * {@code appendfsync always}, never while another thread writes, never after a failed write).
     * Returns whether {@code position} is acknowledged now; when not, use {@link #whenAcknowledged}.
     */
    default boolean writeNow(long position) {
        return acknowledged(position);
    }
}
