package dev.spinel.server.engine.clock;

/**
 * Times the commands one event loop runs back to back with one clock read each instead of two: the
 * {@link System#nanoTime} reading that ends a command's duration also starts the next one's. Redis reads the
 * clock twice per call; in a pipelined batch these reads were ~10 % of the loops' time (docs/performance.md).
 *
 * <p>The front end opens a chain for a read batch ({@link #open}) and breaks it ({@link #close}) when the batch
 * ends and before any work that no command's duration may include (a write to the socket); while no chain is
 * open, each command reads the clock at both ends. What lies between two chained commands (parsing and checking
 * the next request) counts in the next one's duration: a fraction of a microsecond.
 *
 * <p>Thread-safety: confined to one thread; each event-loop thread owns one ({@link Owner}), other threads
 * (the script thread, an embedded caller) have none and always read the clock.
 */
public final class CommandChain {
    /** A thread with a chain of its own: the RESP front end's event loops. */
    public interface Owner {
        CommandChain commandChain();
    }

    /**
     * The wall clock of every command this loop runs: one anchor for all its clients, re-anchored once a
     * millisecond, where a clock per client re-anchored (a clock read and an allocation) on nearly every
     * unpipelined request.
     */
    private final CommandClock clock = new CommandClock();
    private boolean open;
    private boolean hasLast;
    private long last;

    /** The wall clock of the commands this loop runs. */
    public CommandClock clock() {
        return clock;
    }

    /** The current thread's chain, or null when it has none. */
    public static CommandChain current() {
        return Thread.currentThread() instanceof Owner owner ? owner.commandChain() : null;
    }

    /** Commands from now on follow each other: each one's end starts the next. */
    public void open() {
        open = true;
        hasLast = false;
    }

    /** Ends the chain: the next command reads the clock at its start. */
    public void close() {
        open = false;
        hasLast = false;
    }

    /** A command's start: the end of the command before it in the chain, else the clock now. */
    public long start() {
        if (hasLast) {
            hasLast = false;
            return last;
        }
        return System.nanoTime();
    }

    /** A command's end ({@code nanos}, read by the caller), which starts the next one while the chain is open. */
    public void end(long nanos) {
        if (open) {
            last = nanos;
            hasLast = true;
        }
    }
}
