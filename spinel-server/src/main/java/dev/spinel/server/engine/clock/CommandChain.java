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
 * <p>Runs: a command the caller lets {@link #join} a run (Redis's fast commands, GET among them) does not read the
 * clock at its end either; the run is timed as a whole at the next clock read (the next command that does not join,
 * the end of the batch, a full run of {@link #MAX_RUN}), each of its commands being told an equal share. A
 * pipelined batch of GETs between SETs then reads the clock about twice per run instead of once per command.
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
    /** Longest run of commands timed together (see {@link #join}): bounds how old a joined command's start is. */
    static final int MAX_RUN = 32;

    /** What a command timed with its run is told at the run's end: its share, in whole microseconds. */
    public interface Timed {
        void took(long micros, boolean histogram);
    }

    private boolean open;
    /** {@link #last} holds a reading no command's start has taken yet, or the start of the pending run. */
    private boolean hasLast;
    private long last;
    private final Timed[] run = new Timed[MAX_RUN];
    /** Commands joined since {@link #last}, not yet timed. */
    private int pending;
    private boolean histogram;

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
        if (pending > 0) {
            settle(System.nanoTime());
        }
        open = true;
        hasLast = false;
    }

    /** Ends the chain (and times its pending run): the next command reads the clock at its start. */
    public void close() {
        if (pending > 0) {
            settle(System.nanoTime());
        }
        open = false;
        hasLast = false;
    }

    /**
     * A command's start: the end of the command before it in the chain, else the clock now. A pending run ends
     * here: its commands share the time from its start to now.
     */
    public long start() {
        if (pending > 0) {
            long now = System.nanoTime();
            settle(now);
            hasLast = false;
            return now;
        }
        if (hasLast) {
            hasLast = false;
            return last;
        }
        return System.nanoTime();
    }

    /**
     * A command's end ({@code nanos}, read by the caller), which starts the next one while the chain is open; a run
     * pending since the command's start (commands it ran, as EXEC does) is timed up to it.
     */
    public void end(long nanos) {
        if (pending > 0) {
            settle(nanos);
        }
        if (open) {
            last = nanos;
            hasLast = true;
        }
    }

    /**
     * True when a command may be timed with a run instead of reading the clock at its end: the chain is open, holds
     * a reading (the previous command's end, the run's start) and the run is not full. The caller decides which
     * commands may (the engine's RunTiming: fast commands that prove small, while no slowlog or latency-monitor
     * threshold could single one out); one that starts at {@link #runStart} and then does not join ends the run with
     * {@link #absorbRun}.
     */
    public boolean canJoin() {
        return open && hasLast && pending < MAX_RUN;
    }

    /**
     * A {@link System#nanoTime} reading for a check made before a command starts (cluster mode's lease for reads): the
     * reading the chain holds (the previous command's end, or the start of the run of at most {@link #MAX_RUN} fast
     * commands it is in), else the clock now, as for each read batch's first command. Between the reading and the
     * check lie only the previous run's fast commands and this one's parsing, unless the process was paused there.
     */
    public long recentNanos() {
        return open && hasLast ? last : System.nanoTime();
    }

    /** The start of the run a joining command belongs to (its wall clock: at most {@link #MAX_RUN} commands old). */
    public long runStart() {
        return last;
    }

    /**
     * After {@link #canJoin}: the command just run is timed with its run, when the next clock read ends the run
     * (the next command that does not join, the end of the batch, a full run): each of the run's commands is told
     * an equal share of the time since the run's start. Per pipelined command one clock read becomes ~one per run,
     * where each read is ~0.1 µs on this project's VMs (docs/benchmarks.md, "Per-request costs").
     */
    public void join(Timed command, boolean histogram) {
        run[pending++] = command;
        this.histogram = histogram;
    }

    /**
     * Ends the pending run without timing it: a command that started at the run's start ({@link #runStart}) and
     * turned out not to be one to join counts the run's time in its own; the run's commands are told 0.
     */
    public void absorbRun() {
        int n = pending;
        pending = 0;
        for (int i = 0; i < n; i++) {
            Timed t = run[i];
            run[i] = null;
            t.took(0, histogram);
        }
    }

    private void settle(long now) {
        int n = pending;
        long share = Math.max(0, now - last) / n / 1000;
        pending = 0;
        for (int i = 0; i < n; i++) {
            Timed t = run[i];
            run[i] = null;
            t.took(share, histogram);
        }
    }
}
