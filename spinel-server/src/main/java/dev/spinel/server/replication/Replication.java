package dev.spinel.server.replication;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.durability.Aof;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.engine.Propagator;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.RedisError;
import dev.spinel.server.log.Log;
import dev.spinel.server.scripting.FunctionLibraries;
import io.netty.util.concurrent.EventExecutor;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.FutureTask;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntSupplier;

/**
 * A server's replication state and the master side of Redis's replication protocol: the replication
 * ID and offset, the stream ({@link ReplicationStream}, created when the first replica attaches, freed
 * after {@code repl-backlog-ttl} seconds without replicas), the attached replicas ({@link ReplicaLink}),
 * SYNC/PSYNC/REPLCONF, WAIT (its blocked clients in {@link ReplicaWaits}), the replication cron (PINGs, timeouts) and INFO replication / ROLE; as a
 * replica it owns the {@link MasterLink}.
 *
 * <p>Cost with no replica: the propagator is not installed for replication (writes take no extra lock),
 * and with a log the propagator reads one volatile ({@code Engine.replicationFeed}) per write.
 *
 * <p>Thread-safety: thread-safe. Commands run on any event loop; attach/detach of the stream and the
 * role change are serialized on {@code this}; per-replica state lives in its link.
 */
public final class Replication {
    static final String NO_REPLID = "0000000000000000000000000000000000000000";
    private static final byte[] GETACK = "*3\r\n$8\r\nREPLCONF\r\n$6\r\nGETACK\r\n$1\r\n*\r\n".getBytes(StandardCharsets.US_ASCII);

    private final Engine engine;
    private final ServerConfig config;
    /** The function libraries: sent with a full resync, replaced by the master's on the replica side. */
    private final FunctionLibraries functions;
    private volatile String replid = randomHex();
    private volatile String replid2 = NO_REPLID;
    private volatile long secondOffset = -1;
    /** master_repl_offset when no stream exists (kept across a freed backlog, as Redis keeps it). */
    private volatile long idleOffset;
    private volatile ReplicationStream stream;
    /** The replication-only propagator this class installed (removed with the stream), or null. */
    private Propagator installed;
    private final Map<Session, ReplicaLink> replicas = new ConcurrentHashMap<>();
    /** What a connection said with REPLCONF before its SYNC/PSYNC: listening-port, ip-address, capa psync2. */
    private final Map<Session, Announced> announced = new ConcurrentHashMap<>();
    private final ReplicaWaits waits;
    private final LongAdder syncFull = new LongAdder();
    private final LongAdder syncPartialOk = new LongAdder();
    private final LongAdder syncPartialErr = new LongAdder();
    private volatile long noReplicasSince = System.currentTimeMillis();
    private long lastPing;
    /** The port this server listens on, announced to a master with REPLCONF listening-port. */
    private volatile IntSupplier listeningPort;
    /** The replica side: the link to our master, or null while we are a master. */
    private volatile MasterLink masterLink;

    public Replication(Engine engine, ServerConfig config, FunctionLibraries functions) {
        this.engine = engine;
        this.functions = functions;
        this.config = config;
        this.waits = new ReplicaWaits(engine, replicas.values());
        engine.closeListener(this::closed);
        engine.replicaClients(replicas::containsKey);
        config.replBacklogSize.listen(v -> {
            ReplicationStream s = stream;
            if (s != null) {
                s.resize((int) Math.min(Integer.MAX_VALUE - 64, v));
            }
        });
    }

    private static final class Announced {
        volatile int port;
        volatile String ip;
        volatile boolean psync2;
    }

    static String randomHex() {
        byte[] b = new byte[20];
        new SecureRandom().nextBytes(b);
        StringBuilder sb = new StringBuilder(40);
        for (byte x : b) {
            sb.append(Character.forDigit((x >> 4) & 15, 16)).append(Character.forDigit(x & 15, 16));
        }
        return sb.toString();
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
        return replid;
    }

    /** master_repl_offset. */
    public long offset() {
        ReplicationStream s = stream;
        return s != null ? s.offset() : idleOffset;
    }

    // ---- master side ----

    /** The threads that run commands (the event loops), for {@link #quiesce}; null in embedded uses. */
    private volatile Iterable<? extends Executor> commandThreads;

    public void commandThreads(Iterable<? extends Executor> loops) {
        this.commandThreads = loops;
    }

    /**
     * After installing the propagator: waits until every other event loop has finished the task it was
     * running, so no write that saw "no propagator" (and so neither locks for the log nor feeds the stream)
     * is still in flight when the snapshot is armed. Bounded (a loop busy for long is not waited for past
     * a second); the caller's own loop is running this very command.
     */
    private void quiesce() {
        Iterable<? extends Executor> loops = commandThreads;
        if (loops == null) {
            return;
        }
        for (Executor e : loops) {
            if (e instanceof EventExecutor ee && ee.inEventLoop()) {
                continue;
            }
            FutureTask<Void> done = new FutureTask<>(() -> { }, null);
            try {
                e.execute(done);
                done.get(1, TimeUnit.SECONDS);
            } catch (TimeoutException | ExecutionException | RejectedExecutionException ex) {
                Log.warning("Replication: an event loop did not answer the attach barrier in time: " + ex);
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** The stream, created (and the engine quiesced) if absent. */
    private ReplicationStream ensureStream() {
        ReplicationStream s = stream;
        if (s != null) {
            return s;
        }
        boolean installedNow;
        synchronized (this) {
            installedNow = installed == null && engine.propagator() == null;
            s = createStream();
        }
        if (installedNow) {
            quiesce();
        }
        return s;
    }

    /** The stream, created (with a new replication ID, as Redis does for its first backlog) if absent. */
    private synchronized ReplicationStream createStream() {
        ReplicationStream s = stream;
        if (s != null) {
            return s;
        }
        if (masterLink == null) {
            replid = randomHex();
            replid2 = NO_REPLID;
            secondOffset = -1;
        }
        s = new ReplicationStream((int) Math.min(Integer.MAX_VALUE - 64, config.replBacklogSize.value()), idleOffset);
        stream = s;
        engine.replicationFeed(s);
        if (engine.propagator() == null) {
            // appendonly no: writes now go through the propagator (stripes held while logged) for the stream
            installed = Aof.replicationOnly(engine);
            engine.propagator(installed);
        }
        return s;
    }

    /** A replica keeps no stream of its own (no chained replicas yet): its offset is the master's. */
    private void freeStreamNow() {
        if (stream != null) {
            detachStream();
        }
    }

    private synchronized void freeStream() {
        if (stream == null || !replicas.isEmpty()) {
            return;
        }
        detachStream();
        if (masterLink == null) {
            replid = randomHex(); // as Redis: a freed backlog cannot be continued from
            replid2 = NO_REPLID;
            secondOffset = -1;
        }
        Log.notice("Replication backlog freed after " + config.replBacklogTtl.value() + " seconds without connected replicas.");
    }

    /** Stops feeding the stream (and the stream-only propagator, if this installed one); keeps its offset. */
    private void detachStream() {
        idleOffset = stream.offset();
        engine.replicationFeed(null);
        if (installed != null && engine.propagator() == installed) {
            engine.propagator(null);
        }
        installed = null;
        stream = null;
    }

    /** SYNC (legacy: no +FULLRESYNC line) and PSYNC replid offset. */
    void sync(Session s, Args a, boolean psync) {
        if (replicas.containsKey(s)) {
            return; // already a replica: ignored, as Redis does
        }
        MasterLink ml = masterLink;
        if (ml != null && !ml.connected()) {
            throw new RedisError("NOMASTERLINK Can't SYNC while not connected with my master");
        }
        if (ml != null) {
            throw new RedisError("ERR Spinel replicas do not serve replicas yet (chained replication): replicate the master");
        }
        long psyncOffset = -1;
        if (psync) {
            try {
                psyncOffset = a.parseLong(2);
            } catch (NumberFormatException e) {
                throw new RedisError("ERR value is not an integer or out of range");
            }
        }
        ReplicationStream st = ensureStream();
        ReplicaLink link = new ReplicaLink(s, st, this);
        Announced an = announced.remove(s);
        if (an != null) {
            link.listeningPort = an.port;
            link.ipAddress = an.ip;
        }
        if (psync) {
            String id = a.string(1);
            boolean ours = id.equals(replid) || (id.equals(replid2) && psyncOffset <= secondOffset);
            if (ours && st.attachAt(link, psyncOffset)) {
                replicas.put(s, link);
                link.markOnline();
                s.out().raw(((an != null && an.psync2) ? "+CONTINUE " + replid + "\r\n" : "+CONTINUE\r\n").getBytes(StandardCharsets.US_ASCII));
                Log.notice("Partial resynchronization request from " + link.describe() + " accepted. Sending "
                        + (st.offset() - psyncOffset + 1) + " bytes of backlog starting from offset " + psyncOffset + ".");
                link.wake();
                syncPartialOk.increment();
                return;
            }
            if (!id.equals("?")) {
                syncPartialErr.increment();
                Log.notice("Partial resynchronization not accepted for " + link.describe() + " (replid " + id + ", offset " + psyncOffset + ")");
            }
        }
        replicas.put(s, link);
        syncFull.increment();
        long offset = FullResync.begin(engine, functions, st, link, replid, config.rdbcompression.value());
        if (psync) {
            s.out().raw(("+FULLRESYNC " + replid + " " + offset + "\r\n").getBytes(StandardCharsets.US_ASCII));
        }
        Log.notice("Replica " + link.describe() + " asks for synchronization; full resync from offset " + offset);
    }

    /** REPLCONF option value ...; ACK and GETACK send no reply. */
    void replconf(Session s, Args a) {
        if (a.count() % 2 == 0) {
            throw new RedisError("ERR syntax error");
        }
        for (int i = 1; i < a.count(); i += 2) {
            String opt = a.string(i).toLowerCase(Locale.ROOT);
            switch (opt) {
                case "listening-port" -> {
                    long port;
                    try {
                        port = a.parseLong(i + 1);
                    } catch (NumberFormatException e) {
                        throw new RedisError("ERR value is not an integer or out of range");
                    }
                    announced(s).port = (int) port;
                }
                case "ip-address" -> announced(s).ip = a.string(i + 1);
                case "capa" -> {
                    if (a.is(i + 1, "PSYNC2")) {
                        announced(s).psync2 = true;
                    }
                }
                case "ack" -> {
                    ReplicaLink link = replicas.get(s);
                    if (link != null) {
                        try {
                            long off = a.parseLong(i + 1);
                            if (off > link.ackOffset) {
                                link.ackOffset = off;
                            }
                        } catch (NumberFormatException e) {
                            return;
                        }
                        link.ackTime = System.currentTimeMillis();
                        waits.acked();
                    }
                    return; // never a reply
                }
                case "getack" -> {
                    MasterLink ml = masterLink;
                    if (ml != null) {
                        ml.requestAck();
                    }
                    return;
                }
                case "rdb-only", "rdb-filter-only" -> {
                    // accepted; Spinel always sends the whole dataset and the stream
                }
                default -> throw new RedisError("ERR Unrecognized REPLCONF option: " + a.string(i));
            }
        }
        s.out().ok();
    }

    private Announced announced(Session s) {
        return announced.computeIfAbsent(s, x -> new Announced());
    }

    /** The connection closed: a replica's link is detached (its backlog position stays for PSYNC). */
    private void closed(Session s) {
        announced.remove(s);
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
        waits.acked();
    }

    // ---- WAIT ----

    /** WAIT numreplicas timeout: replicas whose acknowledged offset reached this client's writes. */
    void waitForReplicas(Session s, long wanted, long timeout) {
        if (masterLink != null) {
            throw new RedisError("ERR WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a replica is configured to be writable (which is not the default) writes to replicas are just local and are not propagated.");
        }
        if (!waits.await(s, offset(), wanted, timeout)) {
            return; // answered at once
        }
        ReplicationStream st = stream;
        if (st != null && !replicas.isEmpty()) {
            st.appendRaw(GETACK); // as Redis's replicationRequestAckFromSlaves
        }
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

    // ---- ROLE and INFO ----

    void role(Session s) {
        MasterLink ml = masterLink;
        if (ml != null) {
            s.out().array(5).bulk("slave").bulk(ml.host()).integer(ml.port()).bulk(ml.stateName()).integer(ml.processedOffset());
            return;
        }
        var links = replicas.values().stream().filter(ReplicaLink::online).toList();
        ReplyBuffer out = s.out();
        out.array(3).bulk("master").integer(offset()).array(links.size());
        for (ReplicaLink l : links) {
            out.array(3).bulk(l.ip()).bulk(Integer.toString(l.listeningPort)).bulk(Long.toString(l.ackOffset));
        }
    }

    /** The fields of INFO replication, in Redis 7.0's order. */
    public void appendInfo(StringBuilder sb) {
        MasterLink ml = masterLink;
        long now = System.currentTimeMillis();
        if (ml != null) {
            field(sb, "role", "slave");
            ml.appendInfo(sb, now);
        } else {
            field(sb, "role", "master");
        }
        field(sb, "connected_slaves", replicas.size());
        int i = 0;
        for (ReplicaLink l : replicas.values()) {
            String state = l.online() ? "online" : "wait_bgsave";
            sb.append("slave").append(i++).append(":ip=").append(l.ip()).append(",port=").append(l.listeningPort)
                    .append(",state=").append(state).append(",offset=").append(l.ackOffset)
                    .append(",lag=").append((now - l.ackTime) / 1000).append("\r\n");
        }
        field(sb, "master_failover_state", "no-failover");
        field(sb, "master_replid", replid);
        field(sb, "master_replid2", replid2);
        field(sb, "master_repl_offset", offset());
        field(sb, "second_repl_offset", secondOffset);
        ReplicationStream st = stream;
        field(sb, "repl_backlog_active", st != null ? 1 : 0);
        field(sb, "repl_backlog_size", st != null ? st.capacity() : config.replBacklogSize.value());
        field(sb, "repl_backlog_first_byte_offset", st != null ? st.firstByteOffset() : 0);
        field(sb, "repl_backlog_histlen", st != null ? st.histlen() : 0);
    }

    /** INFO stats: full resyncs served, partial resyncs accepted and refused (as Redis counts them). */
    public long syncFull() {
        return syncFull.sum();
    }

    public long syncPartialOk() {
        return syncPartialOk.sum();
    }

    public long syncPartialErr() {
        return syncPartialErr.sum();
    }

    /** Backlog memory for INFO memory's mem_replication_backlog. */
    public long backlogMemory() {
        ReplicationStream st = stream;
        return st != null ? st.capacity() : 0;
    }

    private static void field(StringBuilder sb, String name, Object v) {
        sb.append(name).append(':').append(v).append("\r\n");
    }

    // ---- replica side (MasterLink) ----

    MasterLink masterLink() {
        return masterLink;
    }

    /** True while this server replicates a master (client writes are then refused if replica-read-only). */
    public boolean isReplica() {
        return masterLink != null;
    }

    /** REPLICAOF host port: (re)connects to a new master. */
    public synchronized void replicaOf(String host, int port) {
        MasterLink old = masterLink;
        if (old != null && old.host().equalsIgnoreCase(host) && old.port() == port) {
            return;
        }
        if (old != null) {
            old.close();
        }
        // our own replicas must resync with us: they will be told by the new data (as Redis disconnects them)
        for (ReplicaLink l : replicas.values()) {
            l.drop("the master changed");
        }
        if (old == null) {
            // the current history can be continued by our replicas as replid2 (Redis's shiftReplicationId)
            replid2 = replid;
            secondOffset = offset() + 1;
        }
        MasterLink ml = new MasterLink(this, host, port);
        masterLink = ml;
        freeStreamNow();
        engine.readOnlyReplica(s -> config.replicaReadOnly.value() && !ml.isApplier(s));
        engine.replicaMode(true);
        ml.start();
        Log.notice("Connecting to MASTER " + host + ":" + port);
    }

    /** REPLICAOF NO ONE: stops replicating; keeps the data and continues the history as a new master. */
    public synchronized void promote() {
        MasterLink old = masterLink;
        if (old == null) {
            return;
        }
        old.close();
        masterLink = null;
        engine.readOnlyReplica(null);
        engine.replicaMode(false);
        replid2 = replid;
        secondOffset = offset() + 1;
        replid = randomHex();
        Log.notice("MASTER MODE enabled (user request)");
    }

    /** The replica side took the master's ID and offset (after a full resync or a +CONTINUE with a new ID). */
    synchronized void adoptMaster(String id, long off) {
        replid = id;
        replid2 = NO_REPLID;
        secondOffset = -1;
        idleOffset = off;
    }

    /** The replica side applied the stream up to {@code to} (a replica's offset is its master's). */
    void advanceIdle(long to) {
        idleOffset = to;
    }

    /** Run by the replica side after a full resync loaded the master's RDB (the AOF rewrite); may be null. */
    private volatile Runnable afterFullSync;

    /**
     * What to do once a full resync's RDB is loaded, before the stream is applied: with {@code appendonly yes}
     * the log must start again from the new dataset (Redis's restartAOFAfterSYNC), which a rewrite does.
     */
    public void afterFullSync(Runnable r) {
        this.afterFullSync = r;
    }

    void fullSyncLoaded() {
        Runnable r = afterFullSync;
        if (r != null) {
            r.run();
        }
    }

    /** Where this server listens (the bound port, not the configured one, which may be 0). */
    public void listeningPort(IntSupplier port) {
        this.listeningPort = port;
    }

    int listeningPort() {
        IntSupplier p = listeningPort;
        return p != null ? p.getAsInt() : (int) config.port.value();
    }

    /** Starts replicating when the configuration says {@code replicaof host port}. */
    public void startFromConfig() {
        String v = config.replicaof.value().trim();
        if (!v.isEmpty()) {
            String[] hp = v.split("\\s+");
            replicaOf(hp[0], Integer.parseInt(hp[1]));
        }
    }

    public void close() {
        MasterLink ml = masterLink;
        if (ml != null) {
            ml.close();
        }
    }
}
