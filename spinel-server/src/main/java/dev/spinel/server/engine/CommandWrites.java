package dev.spinel.server.engine;

import dev.spinel.protocol.Args;

import java.util.ArrayList;
import java.util.List;

/**
 * A session's record of the writes of its running command: the dirty count (Redis's server.dirty, per
 * session) and the first-write signal to the engine, quiet writes, the key arguments left unchanged, what
 * to log instead of the command, and whether the command blocked. The engine resets it before each command
 * ({@link #start}) and reads it after; command handlers reach it through {@link Session}'s delegates.
 *
 * <p>{@link Session}'s topmost superclass (through {@link CommandScope}), not an object of its own: one object
 * header and three references less per connection (docs/memory.md, round 7), and the per-command calls are plain
 * field accesses on the session.
 *
 * <p>Thread-safety: none needed; used only by the thread executing the session's command (its loop, or
 * the thread the session is lent to), as the session itself.
 */
abstract sealed class CommandWrites permits CommandScope {
    /** The engine the session belongs to. */
    final Engine engine;
    /** Writes made by this session's commands; the engine compares it around each command. */
    private long dirty;
    private Command currentCommand;
    private Args currentArgs;
    private boolean wroteInCommand;
    private boolean quietWrite;
    private long unchangedKeys;
    /** The current command blocked this session: it is logged (slow log) when served, not now. */
    private boolean blockedInCommand;
    /** What to log instead of the command (non-deterministic commands: SPOP → SREM, BLPOP → LPOP); per command. */
    private List<byte[][]> propagateAs;

    CommandWrites(Engine engine) {
        this.engine = engine;
    }

    /**
     * Records {@code n} changes to the dataset (Redis's server.dirty), for WATCH, persistence and INFO.
     * Call it while still holding the stripe locks of what changed: the first call of a command
     * invalidates the WATCHes on its keys at once, before any EXEC can look at them.
     */
    public void dirty(long n) {
        if (n <= 0) {
            return;
        }
        dirty += n;
        engine.stats().dirty.add(n);
        if (!wroteInCommand) {
            wroteInCommand = true;
            engine.effects().firstWrite((Session) this, currentCommand, currentArgs);
        }
    }

    /**
     * Records {@code n} changes that Redis makes without signalling the key (no signalModifiedKey): they
     * count and are logged like any write, but do not invalidate WATCHes or client-side caches. The
     * stream group commands (XGROUP SETID, XACK, XCLAIM, ...) and XSETID are such writes in Redis 7.0.
     */
    public void dirtyQuietly(long n) {
        if (n <= 0) {
            return;
        }
        dirty += n;
        engine.stats().dirty.add(n);
        if (!wroteInCommand) {
            wroteInCommand = true;
            quietWrite = true;
        }
    }

    /** True when the running command's writes were all {@link #dirtyQuietly quiet} ones. */
    boolean quietWrite() {
        return quietWrite;
    }

    /**
     * A written key argument ({@code argIndex} below 64) that the running command leaves as it was although
     * others changed (SMOVE's destination that already had the member): Redis does not signal it, so its
     * WATCHes and client caches stay valid. Call it before the command's first {@link #dirty}.
     */
    public void keyUnchanged(int argIndex) {
        if (argIndex < 64) {
            unchangedKeys |= 1L << argIndex;
        }
    }

    /**
     * A pop over several keys took from key argument {@code changed} alone: the other key arguments
     * {@code from..to-1} stay as they were, and Redis signals only the popped key (WATCHes of the others hold).
     */
    public void onlyKeyChanged(int changed, int from, int to) {
        for (int i = from; i < to; i++) {
            if (i != changed) {
                keyUnchanged(i);
            }
        }
    }

    /** Whether key argument {@code argIndex} was declared {@link #keyUnchanged unchanged} by the running command. */
    boolean isKeyUnchanged(int argIndex) {
        return argIndex < 64 && (unchangedKeys & (1L << argIndex)) != 0;
    }

    /** The command being executed (set by the engine), for {@link #dirty}. */
    void start(Command cmd, Args args) {
        this.currentCommand = cmd;
        this.currentArgs = args;
        this.blockedInCommand = false;
        this.wroteInCommand = false;
        this.quietWrite = false;
        this.unchangedKeys = 0;
        if (propagateAs != null) {
            propagateAs.clear();
        }
    }

    /**
     * Logs {@code argv} (to the append-only log) instead of the running command; several calls log
     * several commands. For commands whose effect cannot be replayed as received (random or blocking).
     */
    public void propagateAs(byte[]... argv) {
        if (propagateAs == null) {
            propagateAs = new ArrayList<>(2);
        }
        propagateAs.add(argv);
    }

    /** The replacements recorded by the running command ({@code null} or empty: log it as received). */
    public List<byte[][]> propagatedAs() {
        return propagateAs;
    }

    /** Writes made by this session so far (Redis's dirty, per session). */
    long count() {
        return dirty;
    }

    /**
     * The current command has blocked: returns a copy of its arguments (they may live in the connection's
     * input buffer), for the slow log entry Redis writes when the client is unblocked.
     */
    public Args blockedCommand() {
        blockedInCommand = true;
        Args a = currentArgs;
        if (a == null) {
            return null;
        }
        byte[][] parts = new byte[a.count()][];
        for (int i = 0; i < parts.length; i++) {
            parts[i] = a.copy(i);
        }
        return Args.of(parts);
    }

    boolean blockedInCommand() {
        return blockedInCommand;
    }
}
