package dev.spinel.server.replication;

import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.durability.Persistence;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.engine.Session;
import dev.spinel.server.log.Log;
import dev.spinel.server.scripting.FunctionLibraries;

import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

/**
 * A server's replication state and the master side of Redis's replication protocol: the replication
 * IDs ({@link ReplicationHistory}) and offset, the stream ({@link ReplicationStream}, created when the first
 * replica attaches, fed by {@link EngineFeed}, freed after {@code repl-backlog-ttl} seconds without replicas),
 * the attached replicas ({@link ReplicaLink}), SYNC/PSYNC/REPLCONF ({@link ReplicaSync}), WAIT (its blocked
 * clients in {@link ReplicaWaits}), the replication cron (PINGs, timeouts) and INFO replication / ROLE
 * ({@link ReplicationInfo}); as a replica it owns the {@link MasterLink} (set up by {@link ReplicaSetup}).
 *
 * <p>Cost with no replica: the propagator is not installed for replication (writes take no extra lock),
 * and with a log the propagator reads one volatile ({@code Engine.replicationFeed}) per write.
 *
 * <p>Thread-safety: thread-safe. Commands run on any event loop; attach/detach of the stream and the
 * role change are serialized on {@code this}; per-replica state lives in its link.
 */
public final class Replication {
    private final Engine engine;
    private final ServerConfig config;
    /** The function libraries: sent with a full resync, replaced by the master's on the replica side. */
    private final FunctionLibraries functions;
    /** The replication ID, the previous one and where it ends. */
    private final ReplicationHistory history = new ReplicationHistory();
    /** master_repl_offset when no stream exists (kept across a freed backlog, as Redis keeps it). */
    private volatile long idleOffset;
    private volatile ReplicationStream stream;
    /** The engine's writes into the stream: the propagator installed for it, the loops quiesced for it. */
    private final EngineFeed feed;
    private final Map<Session, ReplicaLink> replicas = new ConcurrentHashMap<>();
    private final ReplicaWaits waits;
    private final Refusals refusals;
    private final Failover failover;
    /** The master side's handshake: SYNC/PSYNC, REPLCONF, the diskless start. */
    private final ReplicaSync handshake;
    private ScheduledExecutorService timer;
    private volatile long noReplicasSince = System.currentTimeMillis();
    private volatile long lastPing;
    /** What the server installs for the replica side: its ports and TLS, the after-full-sync step. */
    private final ReplicaSetup setup;
    /** The replica side: the link to our master, or null while we are a master. */
    private volatile MasterLink masterLink;

    public Replication(Engine engine, ServerConfig config, FunctionLibraries functions, Persistence persistence) {
        this.engine = engine;
        this.functions = functions;
        this.config = config;
        this.feed = new EngineFeed(engine);
        this.setup = new ReplicaSetup(config);
        this.waits = new ReplicaWaits(engine, replicas.values());
        this.refusals = new Refusals(this, config, replicas.values());
        this.failover = new Failover(this, engine, replicas.values());
        this.handshake = new ReplicaSync(this, replicas, refusals, waits, failover, persistence);
        engine.hooks().closeListener(this::closed);
        engine.hooks().replicaClients(replicas::containsKey);
        config.replBacklogSize.listen(v -> {
            ReplicationStream s = stream;
            if (s != null) {
                s.resize((int) Math.min(Integer.MAX_VALUE - 64, v));
            }
        });
        config.minReplicasToWrite.listen(v -> refusals.install(engine));
        config.minReplicasMaxLag.listen(v -> refusals.install(engine));
        refusals.install(engine);
    }

    Engine engine() {
        return engine;
    }

    FunctionLibraries functions() {
        return functions;
    }

    ServerConfig config() {
        return config;
    }

    public String replid() {
        return history.replid();
    }

    /** The previous replication ID (continued up to {@link #secondOffset}), or forty zeros. */
    String replid2() {
        return history.replid2();
    }

    /** second_repl_offset: the first offset replid2 no longer covers, or -1. */
    long secondOffset() {
        return history.secondOffset();
    }

    /** master_repl_offset. */
    public long offset() {
        ReplicationStream s = stream;
        return s != null ? s.offset() : idleOffset;
    }

    // ---- master side ----

    /** Where the threads that run commands (the event loops) are, for {@link LoopBarrier#quiesce}. */
    public void commandThreads(Iterable<? extends Executor> loops) {
        feed.threads(loops);
    }

    /** The stream, created (and the engine quiesced) if absent. */
    ReplicationStream ensureStream() {
        ReplicationStream s = stream;
        if (s != null) {
            return s;
        }
        boolean installedNow;
        synchronized (this) {
            installedNow = feed.mustInstall();
            s = createStream();
        }
        if (installedNow) {
            feed.quiesce();
        }
        return s;
    }

    /**
     * The stream, created (with a new replication ID, as Redis does for its first backlog) if absent. On a
     * replica the engine does not feed it: the master link appends the master's bytes as it applies them.
     */
    private synchronized ReplicationStream createStream() {
        ReplicationStream s = stream;
        if (s != null) {
            return s;
        }
        if (masterLink == null) {
            history.restart();
        }
        s = newStream(idleOffset);
        stream = s;
        lastPing = System.currentTimeMillis(); // the first PING one period after the backlog's creation
        if (masterLink == null) {
            feed.start(s);
        }
        return s;
    }

    private ReplicationStream newStream(long offset) {
        return new ReplicationStream((int) Math.min(Integer.MAX_VALUE - 64, config.replBacklogSize.value()), offset);
    }

    private synchronized void freeStream() {
        if (stream == null || !replicas.isEmpty()) {
            return;
        }
        detachStream();
        if (masterLink == null) {
            history.restart(); // as Redis: a freed backlog cannot be continued from
        }
        Log.notice("Replication backlog freed after " + config.replBacklogTtl.value() + " seconds without connected replicas.");
    }

    /** Stops feeding the stream (and the stream-only propagator, if this installed one); keeps its offset. */
    private void detachStream() {
        idleOffset = stream.offset();
        feed.stop();
        stream = null;
    }

    /** Runs {@code task} on replication's timer thread in {@code millis} ms (diskless delay, FAILOVER timeout). */
    synchronized void later(Runnable task, long millis) {
        if (timer == null) {
            timer = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "spinel-repl-timer");
                t.setDaemon(true);
                return t;
            });
        }
        timer.schedule(task, millis, TimeUnit.MILLISECONDS);
    }

    /** The connection closed: a replica's link is detached (its backlog position stays for PSYNC). */
    private void closed(Session s) {
        handshake.closed(s);
        ReplicaLink link = replicas.get(s);
        if (link != null) {
            link.closed();
            forget(link);
            Log.notice("Connection with replica " + link.describe() + " lost.");
        }
    }

    void forget(ReplicaLink link) {
        replicas.remove(link.session, link);
        ReplicationStream st = stream;
        if (st != null) {
            st.detach(link);
        }
        if (replicas.isEmpty()) {
            noReplicasSince = System.currentTimeMillis();
        }
        refusals.refresh();
        waits.acked();
    }

    /** The clients blocked in WAIT. */
    ReplicaWaits waits() {
        return waits;
    }

    // ---- cron ----

    /** Once a second: PINGs to replicas, timeouts, the backlog's TTL, the replica side's reconnects. */
    public void cron() {
        long now = System.currentTimeMillis();
        ReplicationStream st = stream;
        if (st != null && !replicas.isEmpty() && masterLink == null
                && now - lastPing >= config.replPingReplicaPeriod.value() * 1000) {
            lastPing = now;
            st.ping();
        }
        refusals.refresh();
        failover.check();
        long timeoutMs = config.replTimeout.value() * 1000;
        for (ReplicaLink l : replicas.values()) {
            if (l.online() && now - l.ackTime > timeoutMs) {
                l.drop("timeout (no ACK for " + config.replTimeout.value() + " seconds)");
            }
        }
        long ttl = config.replBacklogTtl.value();
        if (st != null && replicas.isEmpty() && masterLink == null && ttl > 0 && now - noReplicasSince > ttl * 1000) {
            freeStream();
        }
        MasterLink ml = masterLink;
        if (ml != null) {
            ml.cron();
        }
    }

    // ---- ROLE and INFO (ReplicationInfo) ----

    /** The fields of INFO replication, in Redis 7.0's order. */
    public void appendInfo(StringBuilder sb) {
        ReplicationInfo.append(this, sb);
    }

    /** INFO stats: full resyncs served, partial resyncs accepted and refused (as Redis counts them). */
    public long syncFull() {
        return handshake.syncFull.sum();
    }

    public long syncPartialOk() {
        return handshake.syncPartialOk.sum();
    }

    public long syncPartialErr() {
        return handshake.syncPartialErr.sum();
    }

    // ---- replica side (MasterLink) ----

    MasterLink masterLink() {
        return masterLink;
    }

    /** The attached replicas, online or not. */
    Collection<ReplicaLink> replicas() {
        return replicas.values();
    }

    Refusals refusals() {
        return refusals;
    }

    /** The master side's handshake: SYNC/PSYNC, REPLCONF, the diskless start. */
    ReplicaSync handshake() {
        return handshake;
    }

    Failover failoverState() {
        return failover;
    }

    /** True while this server replicates a master (client writes are then refused if replica-read-only). */
    public boolean isReplica() {
        return masterLink != null;
    }

    /** True on a replica whose link to its master is up (INFO's master_link_status:up). */
    public boolean linkUp() {
        MasterLink ml = masterLink;
        return ml != null && ml.connected();
    }

    /**
     * REPLICAOF host port: (re)connects to a new master. Our own replicas stay connected until our ID
     * changes (as Redis 7.0); as Redis's replicationCacheMasterUsingMyself, a master that becomes a replica
     * asks its new master to continue its own history (PSYNC with its ID and offset), so a promoted
     * replica of ours answers +CONTINUE.
     */
    public synchronized void replicaOf(String host, int port) {
        MasterLink old = masterLink;
        if (old != null && old.host().equalsIgnoreCase(host) && old.port() == port) {
            return;
        }
        // a new master continues our history; a link to another master where the old link stops (MasterLink)
        connect(old != null ? new MasterLink(this, host, port, old) : new MasterLink(this, host, port, history.replid(), offset(), 0));
    }

    private synchronized void connect(MasterLink ml) {
        MasterLink old = masterLink;
        if (old != null) {
            old.close();
        } else {
            feed.stop(); // the stream (if any) now gets the new master's bytes
        }
        // our replicas stay (Redis 7.0's replicationSetMaster): they resync only if the new master changes our ID
        // (continued) or sends a full resync (fullSyncFrom), so a PSYNC the new master accepts costs them nothing
        engine.blocking().disconnectAll(); // not to be served by the master's stream (Redis's replicationSetMaster)
        masterLink = ml;
        refusals.install(engine);
        engine.replicaRole().active(true);
        engine.keyspace().lazyExpiry(false);
        ml.start();
        Log.notice("Connecting to MASTER " + ml.host() + ":" + ml.port());
    }

    private void dropReplicas(String why) {
        for (ReplicaLink l : replicas.values()) {
            l.drop(why);
        }
    }

    /** REPLICAOF NO ONE: stops replicating; keeps the data and continues the history as a new master. */
    public synchronized void promote() {
        promote("user request");
    }

    /**
     * Stops replicating and continues the history as a new master (Redis's replicationUnsetMaster): a new
     * ID, the old one kept as replid2 up to this offset, so our replicas (disconnected, as Redis does, to
     * learn the new ID) and the old master continue with +CONTINUE.
     */
    synchronized void promote(String why) {
        MasterLink old = masterLink;
        if (old == null) {
            return;
        }
        old.close();
        Lock batch = old.applyLock();
        boolean ended = BatchEnd.await(this, batch, engine.keyspace());
        boolean quiesce;
        try {
            if (masterLink != old) {
                return; // another REPLICAOF or promotion came while we waited: the later one stands
            }
            quiesce = becomeMaster();
        } finally {
            if (ended) {
                batch.unlock(); // before the quiesce: a SAVE on a loop takes it (Replication.applyLock)
            }
        }
        if (quiesce) {
            feed.quiesce();
        }
        Log.notice("MASTER MODE enabled (" + why + ")");
    }

    /** The role change of a promotion; true when the event loops must be quiesced for the new feed. */
    private boolean becomeMaster() {
        masterLink = null;
        engine.replicaRole().active(false);
        engine.keyspace().lazyExpiry(true);
        history.shift(ReplicationHistory.randomHex(), offset() + 1);
        dropReplicas("the replication ID changed (promotion)");
        ReplicationStream st = stream;
        if (st != null) {
            st.forceSelect(); // Redis's slaveseldb = -1: our first write names its database
            feed.start(st);
        }
        refusals.install(engine);
        return st != null && feed.installed();
    }

    /**
     * After a full resync from the master: its ID, and a new stream (the backlog our replicas get) from its
     * offset; our replicas resync (Redis's replicationAttachToNewMaster disconnects them).
     */
    synchronized ReplicationStream fullSyncFrom(String id, long off) {
        dropReplicas("our master sent a full resync");
        history.adopt(id);
        idleOffset = off;
        stream = newStream(off);
        return stream;
    }

    /**
     * +CONTINUE from the master, with its ID: a new ID (the master was promoted) is ours, the old one kept
     * as replid2, and our replicas reconnect to learn it (Redis 7.0). The stream goes on from {@code off}.
     */
    synchronized ReplicationStream continued(String id, long off) {
        if (id != null && !id.equals(history.replid())) {
            history.shift(id, off + 1);
            dropReplicas("the master's replication ID changed");
        }
        if (stream == null || stream.offset() != off) {
            dropReplicas("the backlog restarts");
            stream = newStream(off);
        }
        return stream;
    }

    /** What the server installs for the replica side before it starts (ports, TLS, the step after a full sync). */
    public ReplicaSetup setup() {
        return setup;
    }

    /** The stream a replica forwards to its own replicas (null before its first sync). */
    ReplicationStream stream() {
        return stream;
    }

    /** Starts replicating when the configuration says {@code replicaof host port}. */
    public void startFromConfig() {
        String v = config.replicaof.value().trim();
        if (!v.isEmpty()) {
            String[] hp = v.split("\\s+");
            RestoredHistory h = restored;
            // as Redis: without replication info in the loaded RDB, the first PSYNC is "? -1"
            connect(new MasterLink(this, hp[0], Integer.parseInt(hp[1]), h != null ? h.id : null, h != null ? h.offset : -1, h != null ? h.db : 0));
        }
    }

    /** The replication ID, offset and stream database an RDB loaded at start-up carried (its AUX fields). */
    public record RestoredHistory(String id, long offset, int db) {
    }

    private volatile RestoredHistory restored;

    /**
     * At start-up, the replication info of the loaded RDB (Redis 7.0's loadDataFromDisk): a replica
     * continues its master's history from it (PSYNC id offset+1, then +CONTINUE); a master keeps it as
     * replid2 with a backlog at that offset, so its replicas continue with +CONTINUE after its restart.
     * A replica is one by {@code replicaof} or, {@code clusterReplica}, by its nodes.conf (its primary's link comes
     * from the topology: it then PSYNCs with this ID, and a full resync of the same history loads asynchronously).
     */
    public synchronized void restore(RestoredHistory h, boolean clusterReplica) {
        restored = h;
        if (clusterReplica || !config.replicaof.value().trim().isEmpty()) {
            history.continueAs(h.id);
            idleOffset = h.offset;
            return;
        }
        history.previous(h.id, h.offset + 1);
        idleOffset = h.offset;
        lastPing = noReplicasSince = System.currentTimeMillis(); // the first PING a period after the restart, as Redis
        ReplicationStream st = newStream(h.offset);
        stream = st;
        feed.start(st);
    }

    /**
     * The replication AUX fields of an RDB saved now (Redis's rdbPopulateSaveInfo), or null when there is no
     * history to continue (a master without backlog). The caller holds every stripe and, on a replica,
     * {@link #applyLock}, so the offset matches the dataset.
     */
    public Map<String, Object> saveInfo() {
        return ReplicationInfo.saveInfo(this);
    }

    /** Held by a replica's link while it applies a command: a save taking it sees a whole command's offset. */
    public Lock applyLock() {
        MasterLink ml = masterLink;
        return ml != null ? ml.applyLock() : null;
    }

    public void close() {
        MasterLink ml = masterLink;
        if (ml != null) {
            ml.close();
        }
        synchronized (this) {
            if (timer != null) {
                timer.shutdownNow();
            }
        }
    }
}
