package dev.spinel.server.engine;

import dev.spinel.protocol.CommandSpec;
import dev.spinel.server.acl.CommandIds;
import dev.spinel.server.engine.clock.CommandChain;
import dev.spinel.server.engine.ports.ScriptFlags;
import dev.spinel.server.stats.LatencyHistogram;
import dev.spinel.server.stats.LoopCounter;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * A command Spinel implements: Redis's metadata for it, its handler, its subcommands if it is a
 * container (CONFIG, CLIENT, OBJECT...), and its statistics for INFO commandstats.
 *
 * <p>Thread-safety: immutable after registration, except the statistics, which are concurrent counters.
 */
public final class Command implements CommandChain.Timed {
    private final CommandSpec spec;
    private final CommandHandler handler;
    private final String upperName;
    /**
     * Whether the append-only log sees this command: flagged write, or PFCOUNT (flagged readonly, but
     * refreshing an HLL's cached cardinality writes the key and Redis logs the PFCOUNT then, so that a
     * replay stores the same bytes). Decided once here, not by name per command.
     */
    private final boolean logged;
    /**
     * MOVE and COPY, whose second database is not in their keys: a logged run of them holds every stripe of every
     * database ({@link CommandRunner}).
     */
    final boolean locksEveryDatabase;
    /** Index in the ACL users' command bitsets ({@link CommandIds}). */
    private final int aclId;
    private final boolean noAuth;
    /** EVAL, EVALSHA, their _RO forms, FCALL, FCALL_RO: run on the script thread ({@link ScriptThread}). */
    private final boolean runsScript;
    /** How a script command names its script (null for other commands). */
    final ScriptFlags.ScriptKind scriptKind;
    /**
     * EVAL, EVALSHA and FCALL, whose Redis flags include may_replicate (CLIENT PAUSE WRITE holds them when
     * their script declares no flags); not their _RO forms.
     */
    final boolean scriptMayReplicate;
    /**
     * Read-only, so CLIENT TRACKING remembers its keys; not the read-only script commands themselves (the
     * commands their scripts run decide), as Redis's call().
     */
    final boolean tracksReads;
    /** PUBLISH, INFO, CLIENT LIST: held back until other loops caught up ({@link CatchUpBarrier}'s kinds). */
    final byte catchUp;
    /** The spec's flags that {@link CommandFlag} names, as its bits: tested per call instead of the spec's set. */
    private final long flags;
    /** EXEC, which dispatch checks with the flags of the commands it queued. */
    final boolean exec;
    private final Map<String, Command> subcommands = new HashMap<>();
    final LoopCounter calls = new LoopCounter();
    final LoopCounter micros = new LoopCounter();
    final LongAdder rejectedCalls = new LongAdder();
    final LongAdder failedCalls = new LongAdder();
    final LatencyHistogram latency = new LatencyHistogram();

    public Command(CommandSpec spec, CommandHandler handler) {
        this.spec = spec;
        this.handler = handler;
        String n = spec.name();
        this.upperName = n.substring(0, n.indexOf('|') < 0 ? n.length() : n.indexOf('|')).toUpperCase(Locale.ROOT);
        this.flags = CommandFlag.mask(spec.flags());
        this.exec = n.equals("exec");
        this.logged = spec.has("write") || n.equals("pfcount");
        this.locksEveryDatabase = n.equals("move") || n.equals("copy");
        this.aclId = CommandIds.id(n);
        this.noAuth = spec.has("no_auth");
        this.runsScript = switch (n) {
            case "eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro" -> true;
            default -> false;
        };
        this.scriptKind = switch (n) {
            case "eval", "eval_ro" -> ScriptFlags.ScriptKind.BODY;
            case "evalsha", "evalsha_ro" -> ScriptFlags.ScriptKind.SHA;
            case "fcall", "fcall_ro" -> ScriptFlags.ScriptKind.FUNCTION;
            default -> null;
        };
        this.scriptMayReplicate = n.equals("eval") || n.equals("evalsha") || n.equals("fcall");
        this.catchUp = CatchUpBarrier.of(n);
        this.tracksReads = spec.has("readonly") && !n.equals("eval_ro") && !n.equals("evalsha_ro") && !n.equals("fcall_ro");
    }

    /** Whether Redis flags this command {@code flag} (one mask test). */
    public boolean has(CommandFlag flag) {
        return (flags & flag.bit) != 0;
    }

    public int aclId() {
        return aclId;
    }

    /** Flagged no_auth (AUTH, HELLO): runs before authentication, and ACL rules do not deny it. */
    public boolean noAuth() {
        return noAuth;
    }

    /** See {@link #runsScript}. */
    public boolean runsScript() {
        return runsScript;
    }

    /** See {@link #logged}. */
    public boolean logged() {
        return logged;
    }

    public CommandSpec spec() {
        return spec;
    }

    public String name() {
        return spec.name();
    }

    public CommandHandler handler() {
        return handler;
    }

    /** The container's name in upper case, as "Try CONFIG HELP." prints it. */
    public String upperName() {
        return upperName;
    }

    public boolean hasSubcommands() {
        return !subcommands.isEmpty();
    }

    public Command subcommand(String lowerName) {
        return subcommands.get(lowerName);
    }

    public Map<String, Command> subcommands() {
        return subcommands;
    }

    void addSubcommand(Command sub) {
        String n = sub.name();
        subcommands.put(n.substring(n.indexOf('|') + 1), sub);
    }

    /** Adds one call's duration to INFO commandstats' usec and, with latency-tracking on, to its histogram. */
    @Override
    public void took(long micros, boolean histogram) {
        this.micros.add(micros);
        if (histogram) {
            latency.record(micros);
        }
    }

    public long calls() {
        return calls.sum();
    }

    public long micros() {
        return micros.sum();
    }

    public long rejectedCalls() {
        return rejectedCalls.sum();
    }

    /** This command's latency histogram (Redis's latency-tracking). */
    public LatencyHistogram latency() {
        return latency;
    }

    public long failedCalls() {
        return failedCalls.sum();
    }

    public void resetStats() {
        calls.reset();
        micros.reset();
        rejectedCalls.reset();
        failedCalls.reset();
        latency.reset();
    }
}
