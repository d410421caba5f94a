package dev.spinel.server.replication;

import dev.spinel.server.engine.ports.ReplicationFeed;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * The master's replication stream: what the propagator logs (the same frames as the append-only
 * log), preceded by a SELECT whenever the database changes, as Redis's {@code replicationFeedSlaves}
 * emits it, appended to the {@link ReplicationBacklog}; each attached {@link ReplicaLink} is then woken
 * to copy the new bytes to its socket on its own event loop. One append per propagated write batch;
 * no allocation on that path besides a SELECT when the database changes.
 *
 * <p>Thread-safety: thread-safe. Appends come from every event loop with the written keys' stripes
 * held; {@code this} guards the backlog and the SELECT state, so the stream's order is the order in which
 * appends took the lock, and a reader that holds every stripe ({@link #attachAtSnapshot}) sees the offset
 * that matches the keyspace exactly.
 */
final class ReplicationStream implements ReplicationFeed {
    private static final byte[] MULTI = "*1\r\n$5\r\nMULTI\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] EXEC = "*1\r\n$4\r\nEXEC\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] PING = "*1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII);

    private final ReplicationBacklog backlog;
    /**
     * repl-backlog-size. The ring grows past it while an attached replica has not yet taken older bytes (Redis 7.0's
     * shared replication buffer keeps them for it: a burst written within one command no longer drops a replica
     * whose event loop had no turn to copy it) and comes back to it once none needs more ({@link #trim}).
     */
    private int configured;
    /** The ring is larger than {@link #configured}: {@link #trim} has work. */
    private volatile boolean oversized;
    /** The database the stream last selected; -1 forces a SELECT (after a full resync, as Redis's slaveseldb). */
    private int lastDb = -1;
    /** The attached links, replaced as a whole on attach/detach: a write iterates an array (no iterator object). */
    private volatile ReplicaLink[] links = new ReplicaLink[0];

    ReplicationStream(int capacity, long startOffset) {
        this.backlog = new ReplicationBacklog(capacity, startOffset);
        this.configured = backlog.capacity();
    }

    /**
     * Appends to the ring, first growing it when the bytes would overwrite some an attached replica still needs.
     * Without an attached replica nothing grows it (a replica's own backlog, fed by its master's stream, has no one
     * to keep a large write for: it keeps its last repl-backlog-size bytes, as Redis's).
     */
    private void put(byte[] b, int off, int len) { // under this
        long need = backlog.offset() + len - keepFrom() + 1;
        if (links.length > 0 && need > backlog.capacity() && need <= Integer.MAX_VALUE - 64) {
            backlog.resize((int) Math.min(Integer.MAX_VALUE - 64, Math.max(need, 2L * backlog.capacity())));
            oversized = true;
        }
        backlog.append(b, off, len);
    }

    /** The first byte an attached replica has not copied yet (offset + 1 when none lags); under this. */
    private long keepFrom() {
        long from = backlog.offset() + 1;
        for (ReplicaLink l : links) {
            from = Math.min(from, l.sent() + 1);
        }
        return Math.max(from, backlog.firstByteOffset());
    }

    /** After a replica copied or left: the ring comes back to repl-backlog-size once no replica needs more. */
    void trim() {
        if (!oversized) {
            return;
        }
        synchronized (this) {
            if (oversized && backlog.offset() - keepFrom() + 1 <= configured) {
                backlog.resize(configured);
                oversized = backlog.capacity() > configured;
            }
        }
    }

    @Override
    public void append(int db, byte[] frame, int off, int len) {
        synchronized (this) {
            selectIfNeeded(db);
            put(frame, off, len);
        }
        wakeLinks();
    }

    @Override
    public void appendTransaction(List<int[]> dbs, List<byte[]> frames, boolean wrap) {
        synchronized (this) {
            for (int i = 0; i < frames.size(); i++) {
                selectIfNeeded(dbs.get(i)[0]);
                if (wrap && i == 0) {
                    put(MULTI, 0, MULTI.length);
                }
                byte[] f = frames.get(i);
                put(f, 0, f.length);
            }
            if (wrap) {
                put(EXEC, 0, EXEC.length);
            }
        }
        wakeLinks();
    }

    /** repl-ping-replica-period: a PING in the stream (counted in offsets, as Redis's). */
    void ping() {
        synchronized (this) {
            put(PING, 0, PING.length);
        }
        wakeLinks();
    }

    @Override
    public void appendUnlogged(byte[] frame) {
        appendRaw(frame, 0, frame.length);
    }

    /** A raw frame for the replicas only (REPLCONF GETACK), counted in the offset as Redis does. */
    void appendRaw(byte[] frame) {
        appendRaw(frame, 0, frame.length);
    }

    /**
     * Bytes as they are, no SELECT added: a GETACK, or on a replica the master's stream forwarded to our
     * own replicas unchanged (Redis's replicationFeedStreamFromMasterStream), so offsets match down a chain.
     */
    void appendRaw(byte[] b, int off, int len) {
        synchronized (this) {
            put(b, off, len);
        }
        wakeLinks();
    }

    /** The next write names its database (a promoted replica, as Redis's slaveseldb = -1). */
    synchronized void forceSelect() {
        lastDb = -1;
    }

    /** The database the stream last selected (-1: none yet), for the RDB's repl-stream-db. */
    synchronized int selectedDb() {
        return lastDb;
    }

    private void selectIfNeeded(int db) {
        if (db != lastDb) {
            String n = Integer.toString(db);
            byte[] sel = ("*2\r\n$6\r\nSELECT\r\n$" + n.length() + "\r\n" + n + "\r\n").getBytes(StandardCharsets.US_ASCII);
            put(sel, 0, sel.length);
            lastDb = db;
        }
    }

    private void wakeLinks() {
        for (ReplicaLink l : links) { // an array: allocation-free
            l.wake();
        }
    }

    /**
     * Attaches {@code link} for a full resync; the caller holds every stripe, so no write is between the
     * keyspace's image and the returned offset. The next command in the stream starts with a SELECT.
     */
    synchronized long attachAtSnapshot(ReplicaLink link, boolean selectNext) {
        if (selectNext) {
            lastDb = -1;
        }
        link.startAt(backlog.offset());
        addLink(link);
        return backlog.offset();
    }

    /** Attaches {@code link} to continue from {@code from} (1-based); false when the backlog no longer holds it. */
    synchronized boolean attachAt(ReplicaLink link, long from) {
        if (!backlog.holdsFrom(from)) {
            return false;
        }
        link.startAt(from - 1);
        addLink(link);
        return true;
    }

    private void addLink(ReplicaLink link) { // under this
        ReplicaLink[] cur = links;
        ReplicaLink[] next = Arrays.copyOf(cur, cur.length + 1);
        next[cur.length] = link;
        links = next;
    }

    synchronized void detach(ReplicaLink link) {
        ReplicaLink[] cur = links;
        for (int i = 0; i < cur.length; i++) {
            if (cur[i] == link) {
                ReplicaLink[] next = new ReplicaLink[cur.length - 1];
                System.arraycopy(cur, 0, next, 0, i);
                System.arraycopy(cur, i + 1, next, i, cur.length - i - 1);
                links = next;
                trim();
                return;
            }
        }
    }

    /**
     * Copies the stream after {@code sent} into {@code dst}, at most its length; returns the count, or -1
     * when the backlog no longer holds those bytes (the replica fell too far behind).
     */
    synchronized int copyAfter(long sent, byte[] dst) {
        if (!backlog.holdsFrom(sent + 1)) {
            return -1;
        }
        return backlog.copy(sent + 1, dst, dst.length);
    }

    /**
     * The stream bytes an attached replica's connection ({@code session}) holds and its socket has not taken: its
     * share of the buffer shared with the backlog plus what its connection queues (CLIENT LIST omem); 0 for others.
     */
    long heldBy(Object session) {
        for (ReplicaLink l : links) {
            if (l.session == session) {
                return l.heldBytes();
            }
        }
        return 0;
    }

    /** repl-backlog-size: what the ring comes back to once no replica needs more. */
    synchronized int configured() {
        return configured;
    }

    synchronized long offset() {
        return backlog.offset();
    }

    synchronized long firstByteOffset() {
        return backlog.firstByteOffset();
    }

    synchronized long histlen() {
        return backlog.histlen();
    }

    synchronized int capacity() {
        return backlog.capacity();
    }

    synchronized void resize(int capacity) {
        configured = Math.max(16 * 1024, capacity);
        oversized = true;
        trim();
        if (backlog.capacity() < configured) {
            backlog.resize(configured);
        }
    }
}
