package dev.spinel.server.replication;

import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.config.OutputBufferLimitsParam;
import dev.spinel.server.engine.Session;
import dev.spinel.server.log.Log;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The master's side of one attached replica: the replica's own client connection, turned into a
 * stream sink after SYNC/PSYNC. The stream is copied from the backlog to the connection on the
 * connection's event loop ({@link #pump}); while the RDB of a full resync is still being made, what the
 * stream gets meanwhile stays in the backlog (grown for it) and is sent right after the RDB, so the replica receives
 * {@code $<len>\r\n<rdb>} then every command from the snapshot's offset on.
 *
 * <p>Thread-safety: {@link #wake} is called from any thread (one CAS when a pump is already pending);
 * {@link #pump}, the RDB's tasks and the field {@code online} belong to the connection's event
 * loop. {@code sent}, {@code ackOffset} and {@code ackTime} are volatile for INFO, WAIT and the cron.
 */
final class ReplicaLink {
    private static final int CHUNK = 64 * 1024;

    final Session session;
    private final ReplicationStream stream;
    private final Replication replication;
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final Runnable pumpTask = this::pump;
    private final Runnable drained = this::drained;
    /** The connection's output is full: the next chunk is handed over once it drained (loop only). */
    private boolean draining;
    private byte[] scratch;
    /** The RDB was sent: stream bytes go straight to the socket (loop only, volatile for INFO). */
    private volatile boolean online;
    /** Offset of the last stream byte handed to the connection (or held). */
    private volatile long sent;
    volatile long ackOffset;
    volatile long ackTime = System.currentTimeMillis();
    volatile int listeningPort;
    volatile String ipAddress;
    private volatile boolean dropped;
    /** When the output first passed the soft limit (0: under it); loop only. */
    private long softSince;
    /** The full resync's RDB goes diskless-style ({@code $EOF:<mark>}): the replica said capa eof. */
    private volatile boolean diskless;
    /** A diskless payload was sent; the stream waits for the replica's first ACK (loop only). */
    private boolean awaitingAck;
    /** The mark that ends the diskless payload being streamed (loop only). */
    private byte[] eofMark;
    /** REPLCONF rdb-only 1: the connection gets the RDB and is closed after it, with no stream (redis-cli --rdb). */
    private volatile boolean rdbOnly;
    /** A disk-style RDB is being sent (INFO's send_bulk). */
    private volatile boolean sendingBulk;
    /** The RDB being made for this replica's full resync, told when the replica goes. */
    private volatile ReplicaRdbJob rdbJob;
    /** Bytes of a streamed RDB handed to the loop and not yet written to the connection. */
    private final AtomicLong rdbQueued = new AtomicLong();

    ReplicaLink(Session session, ReplicationStream stream, Replication replication) {
        this.session = session;
        this.stream = stream;
        this.replication = replication;
        session.connection().queueAtMost(QUEUED_AT_MOST);
    }

    /** A replica's connection queues at most this much of the stream (clients may queue 16 MB of replies). */
    private static final int QUEUED_AT_MOST = 1024 * 1024;

    /** Called under the stream's lock when attached: the stream after {@code offset} is for this replica. */
    void startAt(long offset) {
        sent = offset;
    }

    /** A partial resync needs no RDB: the stream goes straight to the socket. */
    void markOnline() {
        online = true;
    }

    boolean online() {
        return online;
    }

    /** Redis's replica state names in INFO: wait_bgsave while its RDB is made (or streamed), send_bulk, online. */
    String state() {
        return online ? "online" : sendingBulk ? "send_bulk" : "wait_bgsave";
    }

    void rdbJob(ReplicaRdbJob job) {
        rdbJob = job;
    }

    boolean dropped() {
        return dropped;
    }

    private void rdbJobGone() {
        ReplicaRdbJob j = rdbJob;
        if (j != null) {
            j.linkGone();
        }
    }

    ReplicationStream stream() {
        return stream;
    }

    void diskless(boolean on) {
        diskless = on;
    }

    boolean diskless() {
        return diskless;
    }

    void rdbOnly(boolean on) {
        rdbOnly = on;
    }

    /** A line before the RDB (a delayed diskless sync's +FULLRESYNC), written on the connection's loop. */
    void sendFirst(byte[] line) {
        session.connection().execute(() -> {
            if (!dropped) {
                session.out().raw(line);
                session.connection().flushReplies();
            }
        });
    }

    long sent() {
        return sent;
    }

    /**
     * Bytes held for this replica besides the backlog: its connection's output not yet written. The stream that comes
     * during its full resync stays in the backlog (which grows for it), as in Redis 7.0's shared replication buffer.
     */
    long outputBytes() {
        return session.connection().pendingOutputBytes();
    }

    /** New stream bytes: schedules a pump on the replica connection's loop unless one is pending. */
    void wake() {
        // a plain read first: while a pump is pending (most writes under load) no CAS bounces the flag's line
        if (!dropped && !scheduled.get() && scheduled.compareAndSet(false, true)) {
            session.connection().execute(pumpTask);
        }
    }

    private void pump() {
        scheduled.set(false);
        if (dropped) {
            return;
        }
        if (!online) {
            // during the full resync the stream stays in the backlog, which keeps it for this replica (Redis 7.0's
            // shared buffer): its share counts against its output limit, as Redis counts it
            checkOutputLimit(heldBytes());
            return;
        }
        if (draining) {
            checkOutputLimit(heldBytes()); // the socket is full: the rest waits in the shared backlog
            return;
        }
        if (scratch == null) {
            scratch = new byte[CHUNK];
        }
        ReplyBuffer out = session.out();
        // Chunks only while the connection takes them (below Netty's high water mark): what the replica has not taken
        // stays in the shared backlog (grown for it) instead of a copy of its own in its connection's output.
        while (session.connection().outputWritable()) {
            int n = stream.copyAfter(sent, scratch);
            if (n < 0) {
                drop("its offset left the backlog (replica too slow; raise repl-backlog-size)");
                return;
            }
            if (n == 0) {
                break;
            }
            out.raw(scratch, 0, n);
            sent += n;
            session.connection().flushReplies();
        }
        stream.trim();
        if (checkOutputLimit(heldBytes()) && !session.connection().outputWritable()) {
            draining = true;
            session.connection().whenWritable(drained);
        }
    }

    /** The connection's output fell below its low water mark: the next chunks follow (loop only). */
    private void drained() {
        draining = false;
        pump();
    }

    /**
     * Stream bytes this replica holds and has not had written to its socket: its share of the shared backlog (what the
     * stream has past the last byte handed to its connection) plus the chunk its connection still queues. Redis counts
     * a replica's output the same way, from the buffer block it is at to the buffer's end (CLIENT LIST omem).
     */
    long heldBytes() {
        return Math.max(0, stream.offset() - sent) + session.connection().pendingOutputBytes();
    }

    /**
     * {@code client-output-buffer-limit replica}: hard, or soft for its seconds (Redis frees the replica); false once
     * dropped. A hard limit below repl-backlog-size counts as repl-backlog-size, as in Redis 7.0: the bytes a replica
     * holds are the backlog's too, and a replica that resynced partially from a full backlog is not dropped at once.
     */
    private boolean checkOutputLimit(long pending) {
        OutputBufferLimitsParam.Limit limit = replication.config().clientOutputBufferLimit.limit(OutputBufferLimitsParam.REPLICA);
        long hard = limit.hardBytes() > 0 ? Math.max(limit.hardBytes(), replication.config().replBacklogSize.value()) : 0;
        long now = System.currentTimeMillis();
        if (hard > 0 && pending >= hard) {
            drop("output buffer of " + pending + " bytes over client-output-buffer-limit replica hard limit");
            return false;
        } else if (limit.softBytes() > 0 && pending >= limit.softBytes()) {
            if (softSince == 0) {
                softSince = now;
            } else if (now - softSince >= limit.softSeconds() * 1000) {
                drop("output buffer over client-output-buffer-limit replica soft limit for " + limit.softSeconds() + " seconds");
                return false;
            }
        } else {
            softSince = 0;
        }
        return true;
    }

    /**
     * A disk-style full resync's RDB, saved to its file, starts: {@code $<len>\r\n}; its bytes follow as
     * {@link #rdbChunk}s, then {@link #rdbBulkEnd} (Redis's send_bulk state meanwhile).
     */
    void rdbBulkStart(long len) {
        sendingBulk = true;
        onLoop(() -> {
            session.out().raw(("$" + len + "\r\n").getBytes(StandardCharsets.US_ASCII));
            ackTime = System.currentTimeMillis();
            session.connection().flushReplies();
        });
    }

    /** The disk-style RDB was sent: what the stream held meanwhile follows (loop only). */
    void rdbBulkEnd() {
        onLoop(() -> {
            sendingBulk = false;
            ackTime = System.currentTimeMillis();
            startStream();
        });
    }

    /** A diskless payload streamed as it is written ({@link RdbStreamOut}) starts: {@code $EOF:<40 random characters>}. */
    void rdbStreamStart() {
        onLoop(() -> {
            eofMark = ReplicationHistory.randomHex().getBytes(StandardCharsets.US_ASCII);
            session.out().raw(("$EOF:" + new String(eofMark, StandardCharsets.US_ASCII) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            ackTime = System.currentTimeMillis();
            session.connection().flushReplies();
        });
    }

    /** The next {@code len} bytes of a streamed payload ({@code chunk} is never written again); false once dropped. */
    boolean rdbChunk(byte[] chunk, int len) {
        if (dropped) {
            return false;
        }
        rdbQueued.addAndGet(len);
        onLoop(() -> {
            rdbQueued.addAndGet(-len);
            session.out().raw(chunk, 0, len);
            session.connection().flushReplies();
        });
        return true;
    }

    /** What of a streamed payload this replica has not taken yet (queued, or in its connection's output); 0 once dropped. */
    long rdbInFlight() {
        return dropped ? 0 : rdbQueued.get() + session.out().size() + session.connection().pendingOutputBytes();
    }

    /** repl-timeout, in milliseconds. */
    long timeoutMillis() {
        return replication.config().replTimeout.value() * 1000;
    }

    /** A streamed payload this replica took nothing of for repl-timeout: freed, as Redis's replicationCron does. */
    void fullSyncTimedOut() {
        Log.warning("Disconnecting timedout replica (full sync): " + describe());
        drop("timeout during its full sync");
    }

    /**
     * The streamed payload's end: its mark. The replica finds the payload's end by its last 40 bytes, so nothing may
     * follow them until it has loaded it and sent its first ACK (Redis's repl_start_cmd_stream_on_ack).
     */
    void rdbStreamEnd() {
        onLoop(() -> {
            session.out().raw(eofMark);
            ackTime = System.currentTimeMillis();
            if (rdbOnly) {
                closeAfterRdb();
                return;
            }
            awaitingAck = true;
            session.connection().flushReplies();
        });
    }

    private void onLoop(Runnable task) {
        try {
            session.connection().execute(() -> {
                if (!dropped) {
                    task.run();
                }
            });
        } catch (RejectedExecutionException e) {
            // the connection's event loop is shutting down: the replica is gone with it
        }
    }

    /** The replica's first ACK after a diskless payload: the stream held meanwhile follows (loop only). */
    void acked() {
        if (awaitingAck && !dropped) {
            awaitingAck = false;
            startStream();
        }
    }

    private void startStream() {
        if (rdbOnly) {
            closeAfterRdb();
            return;
        }
        online = true;
        replication.refusals().refresh(); // a replica online may count as good for min-replicas-to-write (Redis's putSlaveOnline)
        Log.notice("Synchronization with replica " + describe() + " succeeded");
        session.connection().flushReplies();
        pump();
    }

    /** An rdb-only replica had its RDB: it gets nothing more and is closed once that is written, as Redis's replicaPutOnline. */
    private void closeAfterRdb() {
        dropped = true;
        Log.notice("RDB transfer completed, rdb only replica (" + describe() + ") should be disconnected asap");
        replication.forget(this);
        session.connection().closeAfterReply();
        session.connection().flushReplies();
    }

    /** Stops streaming and closes the replica's connection (Redis frees the client the same way). */
    void drop(String why) {
        if (dropped) {
            return;
        }
        dropped = true;
        Log.warning("Dropping replica " + describe() + ": " + why);
        replication.forget(this);
        session.connection().kill();
        rdbJobGone();
    }

    /** The closed connection's link: no more pumps. */
    void closed() {
        dropped = true;
        rdbJobGone();
    }

    String ip() {
        String ip = ipAddress;
        if (ip != null) {
            return ip;
        }
        String remote = session.connection().remoteAddress();
        int colon = remote.lastIndexOf(':');
        String host = colon > 0 ? remote.substring(0, colon) : remote;
        return host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
    }

    String describe() {
        return ip() + ":" + listeningPort;
    }
}
