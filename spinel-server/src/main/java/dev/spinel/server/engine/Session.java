package dev.spinel.server.engine;

import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.store.Database;
import dev.spinel.store.StripeLocks;

/**
 * The state of one client connection: selected database, protocol version, authentication, name,
 * reply mode, and the buffers its commands write into.
 *
 * <p>Thread-safety: owned by the connection's event loop. Fields read by other threads (CLIENT LIST,
 * CLIENT KILL) are volatile and only informational.
 */
public final class Session {
    public enum ReplyMode { ON, OFF, SKIP }

    private final Engine engine;
    private final long id;
    private final ClientConnection connection;
    private final ReplyBuffer out = new ReplyBuffer();
    private final StripeLocks locks = new StripeLocks();
    private final long createdAt = System.currentTimeMillis();

    private volatile int db;
    private volatile boolean authenticated;
    private volatile String name = "";
    private volatile String libName = "";
    private volatile String libVersion = "";
    // Written on every command: plain fields, read racily by CLIENT LIST (informational only).
    private long lastInteraction = createdAt;
    private String lastCommand = "NULL";
    private volatile boolean closing;
    private volatile boolean noEvict;
    private volatile boolean noTouch;
    private ReplyMode replyMode = ReplyMode.ON;
    private Subscriptions subscriptions;
    private Transaction transaction;
    private volatile TrackingState tracking;
    private boolean executingTransaction;
    /** Append-only log position of this session's last logged write (its replies wait for it). */
    private long logPosition;
    private java.util.List<Watches.Key> watched;
    private volatile boolean watchDirty;
    /** Writes made by this session's commands; the engine compares it around each command. */
    private long dirty;
    /** When this subscriber's output first passed the soft limit (0: not over it). */
    private long overSoftLimitSince;
    private long now;

    public Session(Engine engine, long id, ClientConnection connection) {
        this.engine = engine;
        this.id = id;
        this.connection = connection;
        this.authenticated = !engine.authRequired();
    }

    public Engine engine() {
        return engine;
    }

    public long id() {
        return id;
    }

    public ClientConnection connection() {
        return connection;
    }

    public ReplyBuffer out() {
        return out;
    }

    public long logPosition() {
        return logPosition;
    }

    public void logPosition(long position) {
        this.logPosition = position;
    }

    /** Reusable stripe locks for multi-key commands. */
    public StripeLocks locks() {
        return locks;
    }

    public int dbIndex() {
        return db;
    }

    public Database db() {
        return engine.keyspace().db(db);
    }

    public void select(int index) {
        this.db = index;
    }

    public int protocol() {
        return out.resp3() ? 3 : 2;
    }

    public void protocol(int version) {
        out.resp3(version == 3);
    }

    public boolean authenticated() {
        return authenticated;
    }

    public void authenticated(boolean yes) {
        this.authenticated = yes;
    }

    public String name() {
        return name;
    }

    public void name(String n) {
        this.name = n;
    }

    public String libName() {
        return libName;
    }

    public void libName(String n) {
        this.libName = n;
    }

    public String libVersion() {
        return libVersion;
    }

    public void libVersion(String v) {
        this.libVersion = v;
    }

    public long createdAt() {
        return createdAt;
    }

    public long lastInteraction() {
        return lastInteraction;
    }

    public String lastCommand() {
        return lastCommand;
    }

    public boolean closing() {
        return closing;
    }

    /** Marks the session to be closed once its pending replies are written (QUIT, protocol errors). */
    public void closeAfterReply() {
        closing = true;
        connection.closeAfterReply();
    }

    public boolean noEvict() {
        return noEvict;
    }

    public void noEvict(boolean on) {
        this.noEvict = on;
    }

    public boolean noTouch() {
        return noTouch;
    }

    public void noTouch(boolean on) {
        this.noTouch = on;
    }

    public ReplyMode replyMode() {
        return replyMode;
    }

    public void replyMode(ReplyMode mode) {
        this.replyMode = mode;
    }

    /** This session's subscriptions, created on first use. */
    public Subscriptions subscriptions() {
        if (subscriptions == null) {
            subscriptions = new Subscriptions();
        }
        return subscriptions;
    }

    /** True when subscribed to any channel, pattern or shard channel (Redis's CLIENT_PUBSUB flag). */
    public boolean hasSubscriptions() {
        return subscriptions != null && subscriptions.any();
    }

    long overSoftLimitSince() {
        return overSoftLimitSince;
    }

    void overSoftLimitSince(long millis) {
        this.overSoftLimitSince = millis;
    }

    /** Records {@code n} changes to the dataset (Redis's server.dirty), for WATCH, persistence and INFO. */
    public void dirty(long n) {
        dirty += n;
        engine.stats().dirty.add(n);
    }

    long dirtyCount() {
        return dirty;
    }

    /** CLIENT TRACKING settings, or {@code null} when tracking is off. */
    public TrackingState tracking() {
        return tracking;
    }

    void tracking(TrackingState t) {
        this.tracking = t;
    }

    /** The open MULTI, or {@code null}. */
    public Transaction transaction() {
        return transaction;
    }

    void transaction(Transaction t) {
        this.transaction = t;
    }

    /** True while EXEC runs this session's queued commands (blocking commands must not block then). */
    public boolean executingTransaction() {
        return executingTransaction;
    }

    void executingTransaction(boolean on) {
        this.executingTransaction = on;
    }

    java.util.List<Watches.Key> watched() {
        if (watched == null) {
            watched = Watches.newList();
        }
        return watched;
    }

    boolean watching() {
        return watched != null && !watched.isEmpty();
    }

    boolean watchDirty() {
        return watchDirty;
    }

    void watchDirty(boolean on) {
        this.watchDirty = on;
    }

    /** The time of the command being executed, in Unix ms (one clock read per command, as Redis). */
    public long now() {
        return now;
    }

    void beginCommand(long nowMillis, String commandName) {
        this.now = nowMillis;
        this.lastInteraction = nowMillis;
        this.lastCommand = commandName;
    }
}
