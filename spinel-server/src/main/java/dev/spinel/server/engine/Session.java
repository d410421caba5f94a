package dev.spinel.server.engine;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.acl.User;
import dev.spinel.server.engine.clients.ClusterClientFlags;
import dev.spinel.server.engine.ports.ClientConnection;
import dev.spinel.server.engine.pubsub.Subscriptions;
import dev.spinel.server.engine.tracking.TrackedClient;
import dev.spinel.server.engine.tracking.TrackingState;
import dev.spinel.store.Database;
import dev.spinel.store.StripeLocks;

import java.util.function.Consumer;

/**
 * The state of one client connection: selected database, protocol version, authentication, name,
 * reply mode, and the buffers its commands write into. The running command's time and writes are in its
 * superclass {@link CommandScope}; WATCH's state in {@link Watches.WatchState}, cluster mode's flags in
 * {@link ClusterClientFlags}.
 *
 * <p>Thread-safety: owned by the connection's event loop. Fields read by other threads (CLIENT LIST,
 * CLIENT KILL) are volatile and only informational.
 */
public final class Session extends CommandScope implements TrackedClient {
    /**
     * CLIENT REPLY state, as Redis's REPLY_OFF / REPLY_SKIP_NEXT / REPLY_SKIP flags: {@code SKIP_NEXT}
     * is set by CLIENT REPLY SKIP and turns into {@code SKIP} for the following command only; the
     * engine drops the reply of a command that ends in {@code OFF} or {@code SKIP}.
     */
    public enum ReplyMode { ON, OFF, SKIP_NEXT, SKIP }

    private final long id;
    private final ClientConnection connection;
    private final ReplyBuffer out = new ReplyBuffer();
    /** Created on first use: most clients never run a multi-key command. */
    private StripeLocks locks;
    private final long createdAt = System.currentTimeMillis();

    private volatile int db;
    private volatile boolean authenticated;
    /** The ACL user this connection runs as (default until AUTH/HELLO AUTH). */
    private volatile User user;
    /** For a script's session: the client running the script (ACL LOG names it). */
    private Session scriptCaller;
    private volatile String name = "";
    // Written on every command: plain fields, read racily by CLIENT LIST (informational only).
    private long lastInteraction = createdAt;
    private String lastCommand = "NULL";
    private volatile boolean closing;
    /** Set by {@link #kill}: the connection runs nothing more and sends nothing more. */
    private volatile boolean killed;
    private volatile boolean noEvict;
    private volatile boolean noTouch;
    private volatile boolean attachedReplica;
    private volatile boolean monitoring; // MONITOR: its keyspace commands are refused (DispatchRules.lateRefusal)
    /** The thread running one of this client's commands now, or null (see {@link #executingOn()}). */
    private Thread executingOn;
    private Subscriptions subscriptions;
    /** Deliveries from other threads, writes due after replies ({@link Outbox}): made on first use, by any thread. */
    volatile Outbox outbox;
    private Transaction transaction;
    private volatile TrackingState tracking;
    private final Watches.WatchState watch = new Watches.WatchState();
    /** Made on the first cluster-mode command that reads or sets one (ASKING, READONLY, a bus link): null otherwise. */
    ClusterClientFlags cluster;
    /** Append-only log position of this session's last logged write (its replies wait for it). */
    private long logPosition;
    // Set while a blocking command waits (see dev.spinel.server.engine.Blocking); loop thread only.
    // Redis's CLIENT_DENY_BLOCKING: set while EXEC or a script runs; blocking commands then answer at once.
    private boolean denyBlocking;
    /** Replaying the append-only log (Redis's mustObeyClient for the AOF client). */
    /** The session of a script's redis.call (Redis's CLIENT_LUA). */
    private boolean script;

    public Session(Engine engine, long id, ClientConnection connection) {
        super(engine);
        this.id = id;
        this.connection = connection;
        this.authenticated = !engine.authRequired();
        this.user = engine.acl().defaultUser();
    }

    public User user() {
        return user;
    }

    public void user(User u) {
        this.user = u;
    }

    /** The client whose script this session runs, or null when it is not a script's session. */
    public Session scriptCaller() {
        return scriptCaller;
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
        StripeLocks l = locks;
        if (l == null) {
            l = new StripeLocks();
            locks = l;
        }
        return l;
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

    void scriptCaller(Session caller) {
        this.scriptCaller = caller;
    }

    public String name() {
        return name;
    }

    public void name(String n) {
        this.name = n;
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

    /**
     * Cuts this client off now (CLIENT KILL, ACL DELUSER, output buffer limits, idle timeout), as Redis
     * frees it: once this returns, the connection executes no further command (its loop checks
     * {@link #killed} before each one), sends no pending reply or message, no longer appears in CLIENT
     * LIST and no longer waits on a blocking command, and a replica is detached from replication; the socket
     * itself closes on the client's own loop. Safe from any thread.
     */
    public void kill() {
        cutOff();
        connection.kill();
    }

    /**
     * As {@link #kill}, but the socket closes only after {@code killer}'s command has replied (Redis's
     * freeClientAsync): a replica killed inside an EXEC gets none of the stream the EXEC writes after the kill, and
     * reconnects only once the EXEC has run whole, as with Redis. Call on {@code killer}'s loop while it executes.
     */
    public void killAfterReplyOf(Session killer) {
        cutOff();
        killer.afterReply(connection::kill);
    }

    private void cutOff() {
        killed = true;
        engine.clients().remove(this);
        engine.blocking().disconnected(this);
        Consumer<Session> detach = attachedReplica ? engine.hooks().closeListener() : null;
        if (detach != null) {
            // Replication forgets it now (and finds nothing left to do when the socket has closed): INFO's
            // mem_clients_slaves read right after CLIENT KILL TYPE SLAVE no longer counts it, as Redis frees it at once
            detach.accept(this);
        }
    }

    /** True once {@link #kill} was called: nothing more is executed or sent for this client. */
    public boolean killed() {
        return killed;
    }

    public boolean noEvict() {
        return noEvict;
    }

    public void noEvict(boolean on) {
        this.noEvict = on;
    }

    /**
     * True for the session scripts run their commands in (Redis's CLIENT_SCRIPT): XREAD/XREADGROUP refuse
     * BLOCK there, SORT BY nosort sorts sets, as Redis does.
     */
    public boolean script() {
        return script;
    }

    public void script(boolean on) {
        this.script = on;
    }

    public boolean noTouch() {
        return noTouch;
    }

    /** This connection became a replica of this server (SYNC/PSYNC): a command of it may not reply. */
    public boolean attachedReplica() {
        return attachedReplica;
    }

    public void attachedReplica(boolean on) {
        this.attachedReplica = on;
    }

    public boolean monitoring() {
        return monitoring;
    }

    public void monitoring(boolean on) {
        this.monitoring = on;
    }

    public void noTouch(boolean on) {
        this.noTouch = on;
    }

    /**
     * The thread running a command of this client right now, or null: a message published to this client by
     * its own command (PUBLISH, a keyspace event, a script's PUBLISH) is written at once, before the command's
     * reply, as Redis 7.0 does.
     */
    public Thread executingOn() {
        return executingOn;
    }

    void executingOn(Thread t) {
        this.executingOn = t;
    }

    /**
     * Where the running command's reply starts in {@link #out} (set by the engine before each command): what
     * lies after it is dropped when the command ends with replies off or skipped, pushes excepted.
     */
    private int replyStart;

    void replyStart(int position) {
        this.replyStart = position;
    }

    int replyStart() {
        return replyStart;
    }

    /**
     * Before writing a push (a pub/sub confirmation or message, an invalidation), as Redis's CLIENT_PUSHING:
     * pushes reach the client whatever CLIENT REPLY says. When the running command's replies are being
     * dropped, what it replied so far is dropped now, so that the push written next is kept.
     * Call {@link #endPush} after it. On the session's loop only.
     */
    public void beginPush() {
        if (repliesDropped() && executingOn == Thread.currentThread()
                && replyStart <= out.size()) {
            out.truncate(replyStart);
        }
    }

    /** After a push (see {@link #beginPush}): the push is kept when the command's reply is dropped. */
    public void endPush() {
        if (executingOn == Thread.currentThread()) {
            replyStart = out.size();
        }
    }

    /**
     * Hands this session a write to perform on its own loop (a pub/sub message, a MONITOR line, an
     * invalidation). Safe from any thread. Pending deliveries run before the session's next input is
     * executed ({@link #drainDeliveries}), so a message published before a command arrives is sent
     * before that command's reply, as in Redis; an idle session gets them from a task on its loop.
     */
    public void deliver(Runnable write) {
        outbox().deliver(write);
    }

    public void afterReply(Runnable write) {
        outbox().afterReply(write);
    }

    public void afterServedReply(Runnable write) {
        outbox().afterServedReply(write);
    }

    Outbox outbox() {
        Outbox o = outbox;
        return o != null ? o : Outbox.create(this, connection);
    }

    /** A script's session: the keys its tracking caller declared, tracked for it at each read the script makes. */
    private byte[][] declaredKeys;

    void declaredKeys(byte[][] keys) {
        declaredKeys = keys;
    }

    byte[][] declaredKeys() {
        return declaredKeys;
    }

    /** Set when this client's held-back PUBLISH may run (see {@link CatchUpBarrier}); used up by it. */
    private boolean passBarrier;

    /** Whether the request about to run already waited for the other loops (and may not wait again). */
    boolean passBarrier() {
        boolean pass = passBarrier;
        passBarrier = false;
        return pass;
    }

    void passBarrier(boolean pass) {
        this.passBarrier = pass;
    }

    /** Performs the pending deliveries (on the session's loop); true if there were any. */
    public boolean drainDeliveries() {
        return Outbox.drain(outbox);
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

    /** CLIENT TRACKING settings, or {@code null} when tracking is off. */
    public TrackingState tracking() {
        return tracking;
    }

    public void tracking(TrackingState t) {
        this.tracking = t;
    }

    /** Announces a keyspace event for a key of this session's current database. */
    public void notify(int type, String event, byte[] key) {
        engine.notifications().notify(type, event, key, db);
    }

    /** Announces a keyspace event for key argument {@code i}; copies the key only when the class is enabled. */
    public void notify(int type, String event, Args a, int i) {
        if (engine.notifications().enabled(type)) {
            engine.notifications().notify(type, event, a.copy(i), db);
        }
    }

    /** Announces a keyspace event for a key of database {@code dbIndex}. */
    public void notify(int type, String event, byte[] key, int dbIndex) {
        engine.notifications().notify(type, event, key, dbIndex);
    }

    /** The open MULTI, or {@code null}. */
    public Transaction transaction() {
        return transaction;
    }

    void transaction(Transaction t) {
        this.transaction = t;
    }

    /** The keys this session watches and whether one changed (WATCH, EXEC). */
    Watches.WatchState watch() {
        return watch;
    }

    /** True when a watched key changed: the next EXEC fails (CLIENT LIST flag d). */
    public boolean watchInvalidated() {
        return watch.dirty();
    }

    /** ASKING, READONLY and the bus link flag of cluster mode. */
    public ClusterClientFlags cluster() {
        ClusterClientFlags c = cluster;
        if (c == null) { // only the thread executing this session's command gets here: no race
            c = new ClusterClientFlags();
            cluster = c;
        }
        return c;
    }

    /**
     * RESET: back to a fresh connection's state: no transaction, no watches, no subscriptions, no
     * tracking, not monitoring, db 0, RESP2, no name, default-user authentication, replies on. Like
     * Redis 7.0, CLIENT NO-EVICT survives.
     */
    public void reset() {
        transaction = null;
        engine.watches().unwatchAll(this);
        engine.pubSub().unsubscribeAll(this);
        engine.tracking().disable(this);
        engine.monitors().remove(this);
        monitoring = false;
        select(0);
        protocol(2);
        name = "";
        authenticated = !engine.authRequired();
        user = engine.acl().defaultUser();
        replyMode = ReplyMode.ON;
    }

    /** True while the connection does not execute its input (paused by CLIENT PAUSE, or blocked). */
    public boolean suspended() {
        return connection.suspended();
    }

    void beginCommand(long nowMillis, String commandName) {
        this.now = nowMillis;
        this.lastInteraction = nowMillis;
        this.lastCommand = commandName;
    }

    /** Whether blocking commands must answer at once instead of blocking (inside EXEC or a script). */
    public boolean denyBlocking() {
        return denyBlocking || executingTransaction;
    }

    public void denyBlocking(boolean deny) {
        this.denyBlocking = deny;
    }

    /**
     * Stops input processing after the current command (a blocking command that waits; called on the
     * session's loop). The pipelined requests stay in the query buffer.
     */
    public void suspend() {
        connection.suspend(null);
    }

    /** Ends a suspension: the connection runs its pending input on its own loop. */
    public void resume() {
        connection.resume();
    }
}
