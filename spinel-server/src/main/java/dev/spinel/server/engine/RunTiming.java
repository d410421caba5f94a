package dev.spinel.server.engine;

import dev.spinel.protocol.Args;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.engine.clock.CommandChain;

/**
 * Which commands are timed with a run ({@link CommandChain#join}) instead of reading the clock at their end: only
 * those no slowlog or latency-monitor threshold could single out. Redis's fast commands (O(1) or O(log N)) take
 * microseconds; while both thresholds are 1 ms or more (Redis's defaults: the slowlog at 10 ms, the monitor off) one
 * cannot pass them unless it does work its flag does not promise, which is checked after it ran: it wrote (a lazily
 * expired key freed, members added), or its request or reply was large (a GET of a large value). Such a command reads
 * the clock at its end, and its time is counted from the run's start: it takes in the microseconds of the fast
 * commands before it in its batch, which are told 0 (each well under the microsecond its time is counted in).
 *
 * <p>Thread-safety: stateless; reads the configuration's volatile values.
 */
final class RunTiming {
    /** Below this, no fast command can be one the slowlog or the latency monitor must single out. */
    private static final long MIN_THRESHOLD_MICROS = 1000;
    /** Request and reply sizes up to which a fast command that wrote nothing is one of microseconds. */
    private static final int SMALL_BYTES = 8 * 1024;

    private RunTiming() {
    }

    /** Before the command: whether it may start at its run's start (no clock read), from its flags and the thresholds. */
    static boolean mayJoin(CommandChain chain, Command cmd, ServerConfig config) {
        if (chain == null || !chain.canJoin() || !cmd.has(CommandFlag.FAST)) {
            return false;
        }
        long slower = config.slowlogLogSlowerThan.value();
        return (slower < 0 || slower >= MIN_THRESHOLD_MICROS) && config.latencyMonitorThreshold.value() == 0;
    }

    /** After it ran: whether it stays in the run (no clock read at its end either). */
    static boolean stays(Args args, int replyGrowth, boolean wrote) {
        if (wrote || replyGrowth < 0 || replyGrowth > SMALL_BYTES) {
            return false;
        }
        int last = args.count() - 1;
        return last < 0 || args.offset(last) + args.length(last) - args.offset(0) <= SMALL_BYTES;
    }
}
