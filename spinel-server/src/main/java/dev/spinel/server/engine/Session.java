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
    private long now;
    // Set while a blocking command waits (see dev.spinel.server.blocking.Blocking); loop thread only.
    private boolean suspended;
    // Redis's CLIENT_DENY_BLOCKING: set while EXEC or a script runs; blocking commands then answer at once.
    private boolean denyBlocking;

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

    /** The time of the command being executed, in Unix ms (one clock read per command, as Redis). */
    public long now() {
        return now;
    }

    void beginCommand(long nowMillis, String commandName) {
        this.now = nowMillis;
        this.lastInteraction = nowMillis;
        this.lastCommand = commandName;
    }

    /**
     * True while the session must not execute further input (blocked on BLPOP and friends): the
     * front end stops its processing loop and keeps the pipelined requests in the query buffer.
     */
    public boolean suspended() {
        return suspended;
    }

    /** Whether blocking commands must answer at once instead of blocking (inside EXEC or a script). */
    public boolean denyBlocking() {
        return denyBlocking;
    }

    public void denyBlocking(boolean deny) {
        this.denyBlocking = deny;
    }

    /** Stops input processing after the current command (called on the session's loop). */
    public void suspend() {
        suspended = true;
    }

    /** Ends a suspension and lets the connection run its pending input (called on the session's loop). */
    public void resume() {
        if (suspended) {
            suspended = false;
            connection.resumeInput();
        }
    }
}
