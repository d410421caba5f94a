package dev.spinel.server.engine.clock;

import java.time.Instant;

/**
 * The wall-clock time of a command, derived from the {@link System#nanoTime} reading that also starts the
 * command's duration measurement: one clock read per command instead of two ({@code nanoTime} and
 * {@code currentTimeMillis} each cost ~35 ns on this project's VMs, a fifth of an in-cache GET through the engine).
 *
 * <p>The derivation is re-anchored to the real wall clock ({@link Instant#now}, nanosecond precision) whenever
 * more than {@link #REANCHOR_NANOS} have passed, so the result is the wall clock to within microseconds, and a
 * wall-clock step (NTP, an operator) is followed within a millisecond, as Redis follows it per command.
 *
 * <p>Thread-safety: the anchor is one immutable object published through a plain field; a thread that sees a
 * stale anchor only re-anchors again; so one instance may serve any number of threads. One instance per event loop
 * ({@link CommandChain}), and {@link #offLoop()} for commands run on other threads (scripts, the gRPC service):
 * sessions had one each, 40 B per connection that most never used.
 */
public final class CommandClock {
    static final long REANCHOR_NANOS = 1_000_000L;

    private record Anchor(long nano, long wallNanos) {
    }

    private static final CommandClock OFF_LOOP = new CommandClock();

    private Anchor anchor = anchor();
    /** Re-anchorings so far (tests). */
    int anchorings;

    /** The clock shared by the commands run off the event loops. */
    public static CommandClock offLoop() {
        return OFF_LOOP;
    }

    private static Anchor anchor() {
        long nano = System.nanoTime();
        Instant now = Instant.now();
        return new Anchor(nano, now.getEpochSecond() * 1_000_000_000L + now.getNano());
    }

    /** Unix milliseconds at {@code nanoNow} (a {@link System#nanoTime} reading taken just before). */
    public long millis(long nanoNow) {
        Anchor a = anchor;
        long elapsed = nanoNow - a.nano;
        // A reading a little older than the anchor is fine (the line extends backwards): the commands of a run
        // (CommandChain.join) all pass the run's start, which a re-anchoring during the run has just overtaken;
        // re-anchoring for each of them cost an Instant.now per command (4 % of a pipelined profile).
        if (elapsed < -REANCHOR_NANOS || elapsed > REANCHOR_NANOS) {
            a = anchor();
            anchor = a;
            anchorings++;
            elapsed = Math.max(0, nanoNow - a.nano);
        }
        return Math.floorDiv(a.wallNanos + elapsed, 1_000_000L);
    }
}
