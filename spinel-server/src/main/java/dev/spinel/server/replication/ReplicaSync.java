package dev.spinel.server.replication;

import dev.spinel.protocol.Args;
import dev.spinel.server.durability.Persistence;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.RedisError;
import dev.spinel.server.log.Log;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongConsumer;

/**
 * The master side of Redis's replication handshake: SYNC and PSYNC (a partial resync from the backlog, or a
 * full one, diskless ones started together after repl-diskless-sync-delay), and REPLCONF (what a replica
 * announces before its SYNC, its ACKs, GETACK). The replication state it answers from and attaches to is
 * {@link Replication}'s.
 *
 * <p>Thread-safety: commands run on any event loop; what a connection announced is in a concurrent map; the
 * replicas waiting for a diskless start are guarded by the {@link Replication} object's lock, as the role
 * changes are, so a diskless start never interleaves with one.
 */
final class ReplicaSync {
    private final Replication repl;
    private final Map<Session, ReplicaLink> replicas;
    private final Refusals refusals;
    private final ReplicaWaits waits;
    private final Failover failover;
    /** Where a full resync's RDB is counted as a BGSAVE (and, disk-style, written). */
    private final Persistence persistence;
    private final Map<Session, Announced> announced = new ConcurrentHashMap<>();
    /** Replicas waiting for a diskless full resync to start (repl-diskless-sync-delay); guarded by {@code repl}. */
    private final List<ReplicaLink> disklessWaiting = new ArrayList<>();
    private long disklessWaitingSince;
    /** INFO stats: full resyncs served, partial resyncs accepted and refused (as Redis counts them; CONFIG RESETSTAT zeroes them). */
    final LongAdder syncFull;
    final LongAdder syncPartialOk;
    final LongAdder syncPartialErr;

    ReplicaSync(Replication repl, Map<Session, ReplicaLink> replicas, Refusals refusals, ReplicaWaits waits, Failover failover,
                Persistence persistence) {
        this.repl = repl;
        this.persistence = persistence;
        this.replicas = replicas;
        this.refusals = refusals;
        this.waits = waits;
        this.failover = failover;
        this.syncFull = repl.engine().stats().syncFull;
        this.syncPartialOk = repl.engine().stats().syncPartialOk;
        this.syncPartialErr = repl.engine().stats().syncPartialErr;
    }

    /** What a connection said with REPLCONF before its SYNC/PSYNC: listening-port, ip-address, capa psync2 and eof. */
    private static final class Announced {
        volatile int port;
        volatile String ip;
        volatile boolean psync2;
        volatile boolean eof;
        /** REPLCONF rdb-only 1: the RDB and nothing after it (redis-cli --rdb). */
        volatile boolean rdbOnly;
        /** REPLCONF rdb-filter-only: what of the RDB this connection wants. */
        volatile RdbFilter rdbFilter = RdbFilter.ALL;
    }

    /**
     * SYNC (legacy: no +FULLRESYNC line) and PSYNC replid offset [FAILOVER]. A replica serves its own
     * replicas too (chained replication) once its link is up: they get its master's stream as received.
     */
    void sync(Session s, Args a, boolean psync) {
        if (replicas.containsKey(s)) {
            return; // already a replica: ignored, as Redis does
        }
        if (psync && a.count() > 3 && a.is(3, "FAILOVER")) {
            // the old master of a FAILOVER asks us to take over (Redis 7.0's syncCommand)
            if (!a.string(1).equals(repl.replid())) {
                throw new RedisError("ERR PSYNC FAILOVER replid must match my replid.");
            }
            repl.promote("failover request from '" + s.connection().remoteAddress() + "'");
        }
        MasterLink ml = repl.masterLink();
        if (ml != null && !ml.connected()) {
            throw new RedisError("NOMASTERLINK Can't SYNC while not connected with my master");
        }
        long psyncOffset = -1;
        if (psync) {
            try {
                psyncOffset = a.parseLong(2);
            } catch (NumberFormatException e) {
                Log.warning("Replica " + s.connection().remoteAddress() + " asks for synchronization but with a wrong offset");
                throw new RedisError("ERR value is not an integer or out of range");
            }
        }
        ReplicationStream st = ml != null ? repl.stream() : repl.ensureStream();
        if (st == null) {
            throw new RedisError("NOMASTERLINK Can't SYNC while not connected with my master");
        }
        Announced asked = announced.get(s);
        RdbFilter filter = asked != null ? asked.rdbFilter : RdbFilter.ALL;
        if (filter != RdbFilter.ALL && !asked.eof) {
            // a filtered RDB is only ever streamed (Redis keeps it out of the snapshot files)
            throw new RedisError("ERR Filtered replica requires EOF capability");
        }
        ReplicaLink link = new ReplicaLink(s, st, repl);
        Announced an = announced.remove(s);
        if (an != null) {
            link.listeningPort = an.port;
            link.ipAddress = an.ip;
            link.rdbOnly(an.rdbOnly);
        }
        if (psync) {
            String id = a.string(1);
            String replid = repl.replid();
            boolean ours = id.equals(replid) || (id.equals(repl.replid2()) && psyncOffset <= repl.secondOffset());
            if (ours && st.attachAt(link, psyncOffset)) {
                replicas.put(s, link);
                s.attachedReplica(true);
                link.markOnline();
                refusals.refresh();
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
        s.attachedReplica(true); // its commands may not reply from now on (ReplicaClientGuard)
        syncFull.increment();
        if (repl.config().replDisableTcpNodelay.value()) {
            s.connection().noDelay(false); // fewer, larger packets to the replica, as Redis's syncCommand
        }
        boolean eof = an != null && an.eof && (repl.config().replDisklessSync.value() || filter != RdbFilter.ALL);
        link.diskless(eof);
        if (eof && psync && filter == RdbFilter.ALL
                && (repl.config().replDisklessSyncDelay.value() > 0 || repl.config().replDisklessSyncMaxReplicas.value() > 0)) {
            waitForDisklessStart(link); // +FULLRESYNC when the transfer starts, shared by the replicas that came meanwhile
            return;
        }
        long offset = startFullResync(List.of(link), filter, off -> {
            if (psync) {
                s.out().raw(fullResyncLine(off)); // on this loop: before the RDB, which is sent by a task of this loop
            }
        });
        Log.notice("Replica " + link.describe() + " asks for synchronization; full resync from offset " + offset
                + (eof ? " (diskless)" : ""));
    }

    private byte[] fullResyncLine(long offset) {
        return ("+FULLRESYNC " + repl.replid() + " " + offset + "\r\n").getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * The snapshot for {@code links} (one RDB for all), attached to the stream at the same point; on a
     * replica, between two applied commands of the master's stream, whose database the RDB names.
     */
    private long startFullResync(List<ReplicaLink> links, RdbFilter filter, LongConsumer beforeRdb) {
        MasterLink ml = repl.masterLink();
        ReplicationStream st = links.getFirst().stream();
        return FullResync.begin(repl.engine(), repl.functions(), st, links, repl.replid(), ml != null ? ml.applyLock() : null,
                ml != null ? ml::streamDb : () -> 0, persistence, filter, beforeRdb);
    }

    /**
     * repl-diskless-sync-delay: the transfer starts once the first waiting replica waited that many
     * seconds, or at once when repl-diskless-sync-max-replicas replicas wait, as Redis's replicationCron.
     */
    private void waitForDisklessStart(ReplicaLink link) {
        synchronized (repl) {
            disklessWaiting.add(link);
            long max = repl.config().replDisklessSyncMaxReplicas.value();
            if (max > 0 && disklessWaiting.size() >= max) {
                startDisklessNow();
                return;
            }
            if (disklessWaiting.size() == 1) {
                disklessWaitingSince = System.currentTimeMillis();
                repl.later(this::startDisklessIfDue, repl.config().replDisklessSyncDelay.value() * 1000);
            }
            Log.notice("Delay next BGSAVE for diskless SYNC (replica " + link.describe() + ")");
        }
    }

    private void startDisklessIfDue() {
        synchronized (repl) {
            if (!disklessWaiting.isEmpty() && System.currentTimeMillis() - disklessWaitingSince >= repl.config().replDisklessSyncDelay.value() * 1000 - 50) {
                startDisklessNow();
            } else if (!disklessWaiting.isEmpty()) {
                repl.later(this::startDisklessIfDue, 100);
            }
        }
    }

    private void startDisklessNow() {
        List<ReplicaLink> links = new ArrayList<>();
        for (ReplicaLink l : disklessWaiting) {
            if (replicas.get(l.session) == l) {
                links.add(l);
            }
        }
        disklessWaiting.clear();
        if (links.isEmpty()) {
            return;
        }
        long offset = startFullResync(links, RdbFilter.ALL, off -> {
            byte[] line = fullResyncLine(off);
            for (ReplicaLink l : links) {
                l.sendFirst(line);
            }
        });
        Log.notice("Starting BGSAVE for SYNC with target: replicas sockets (" + links.size() + " replicas, offset " + offset + ")");
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
                case "ip-address" -> {
                    String ip = a.string(i + 1);
                    if (ip.length() >= 256) { // Redis's NET_HOST_STR_LEN
                        throw new RedisError("ERR REPLCONF ip-address provided by replica instance is too long: " + ip.length() + " bytes");
                    }
                    announced(s).ip = ip;
                }
                case "capa" -> {
                    if (a.is(i + 1, "PSYNC2")) {
                        announced(s).psync2 = true;
                    } else if (a.is(i + 1, "EOF")) {
                        announced(s).eof = true;
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
                        link.acked();
                        waits.acked();
                        failover.check();
                    }
                    return; // never a reply
                }
                case "getack" -> {
                    MasterLink ml = repl.masterLink();
                    if (ml != null) {
                        ml.requestAck();
                    }
                    return;
                }
                case "rdb-only" -> {
                    long v;
                    try {
                        v = a.parseLong(i + 1);
                    } catch (NumberFormatException e) {
                        throw new RedisError("ERR value is not an integer or out of range");
                    }
                    if (v < 0 || v > 1) {
                        throw new RedisError("ERR value is out of range, value must between 0 and 1");
                    }
                    announced(s).rdbOnly = v == 1;
                }
                case "rdb-filter-only" -> announced(s).rdbFilter = RdbFilter.parse(a.string(i + 1));
                default -> throw new RedisError("ERR Unrecognized REPLCONF option: " + a.string(i));
            }
        }
        s.out().ok();
    }

    private Announced announced(Session s) {
        return announced.computeIfAbsent(s, x -> new Announced());
    }

    /** The clients blocked in WAIT (which an ACK may answer). */
    ReplicaWaits waits() {
        return waits;
    }

    /** The connection closed: what it announced is forgotten. */
    void closed(Session s) {
        announced.remove(s);
    }
}
