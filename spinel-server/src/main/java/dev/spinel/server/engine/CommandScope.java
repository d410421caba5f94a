package dev.spinel.server.engine;

/**
 * What a {@link Session}'s running command sees of itself: the time it runs at and the time keys expire
 * against (frozen inside EXEC and scripts, never reached for the replication stream's applier), and the
 * writes it records for WATCH, the log and replication ({@link CommandWrites}). Session's superclass, so
 * that these per-command calls stay plain field accesses on the session.
 *
 * <p>Thread-safety: as {@link Session}: used only by the thread executing the session's command.
 */
public abstract sealed class CommandScope extends CommandWrites permits Session {
    /** The time of the running command, in Unix ms (see {@link #now()}). */
    long now;
    /** EXEC runs the session's queued commands (see {@link #executingTransaction()}). */
    boolean executingTransaction;
    /** While EXEC or a script runs: the time keys are checked for expiry against (see {@link #lookupNow}). */
    private long frozenNow = -1;
    /** The session applying a master's stream: keys never expire for it (see {@link #lookupNow}). */
    private boolean replicationApplier;
    /** The session replaying the append-only log (see {@link #replaying()}). */
    private boolean replaying;
    /** Where this session's writes go (see {@link #propagateTargets()}). */
    private int propagateTargets = Propagator.TO_ALL;

    CommandScope(Engine engine) {
        super(engine);
    }

    /** Writes made by this session so far (Redis's dirty, per session). */
    public long dirtyCount() {
        return count();
    }

    /** The running command's writes (the engine's view): the session itself. */
    CommandWrites writes() {
        return this;
    }

    /**
     * Where the writes of this session's commands are propagated: {@link Propagator#TO_AOF},
     * {@link Propagator#TO_REPLICAS}, both ({@link Propagator#TO_ALL}, always but in a script that called
     * {@code redis.set_repl}) or neither. Honoured for the writes collected as one block (EXEC, scripts).
     */
    public int propagateTargets() {
        return propagateTargets;
    }

    /** A script's {@code redis.set_repl(flags)}: the targets of its following writes (see {@link #propagateTargets()}). */
    public void propagateTargets(int targets) {
        this.propagateTargets = targets;
    }

    /** True while EXEC runs this session's queued commands (blocking commands must not block then). */
    public boolean executingTransaction() {
        return executingTransaction;
    }

    void executingTransaction(boolean on) {
        this.executingTransaction = on;
        this.frozenNow = on ? System.currentTimeMillis() : -1;
    }

    /** True for the session applying a master's stream: never redirected (cluster mode) nor refused (READONLY, MASTERDOWN), as Redis's master client. */
    public boolean isReplicationApplier() {
        return replicationApplier;
    }

    /**
     * Marks the session that applies a master's replication stream. As Redis's master client, it sees
     * every key the master still has: a key past its expiry on this replica's clock is still there for the
     * master's commands, until the master's own DEL removes it.
     */
    public void replicationApplier(boolean on) {
        this.replicationApplier = on;
    }

    /**
     * The time key lookups check expiry against: the command's time, but inside EXEC and scripts the time
     * they started, as Redis (fixed_time_expire, the script's time snapshot): a key does not expire in the
     * middle of a transaction or script. TTLs and new expiry times still use {@link #now}.
     */
    public long lookupNow() {
        if (replicationApplier || replaying) {
            return 0; // before every expiry: nothing is expired for the master's stream, nor while loading the log
        }
        long f = frozenNow;
        return f >= 0 ? f : now;
    }

    /** The time of the command being executed, in Unix ms (one clock read per command, as Redis). */
    public long now() {
        return now;
    }

    /**
     * Redis's checkAlreadyExpired: an absolute expiry time already past deletes the key at once (EXPIREAT,
     * GETEX PXAT, RESTORE ABSTTL), except on a replica, which keeps it with that time (reads report it
     * missing) until its master's DEL.
     */
    public boolean expiresAtOnce(long when) {
        return when <= now && !replaying && !engine.replicaRole().active(); // Redis's checkAlreadyExpired: not while loading
    }

    /** True for the session replaying the append-only log: commands are applied as logged, unchecked limits. */
    public boolean replaying() {
        return replaying;
    }

    public void replaying(boolean r) {
        this.replaying = r;
    }

    /** CLIENT REPLY's state (kept here, beside the other per-command flags, for Session's size). */
    Session.ReplyMode replyMode = Session.ReplyMode.ON;

    public Session.ReplyMode replyMode() {
        return replyMode;
    }

    public void replyMode(Session.ReplyMode mode) {
        this.replyMode = mode;
    }

    /** What is sent now is dropped: CLIENT REPLY OFF, or SKIP before the next command (Client's contract). */
    public boolean repliesDropped() {
        return replyMode == Session.ReplyMode.OFF || replyMode == Session.ReplyMode.SKIP;
    }
}
