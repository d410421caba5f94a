package dev.spinel.server.replication;

/**
 * Redis's replication backlog: a ring holding the last {@code capacity} bytes of the replication
 * stream, addressed by stream offset. Offsets count every byte ever appended, as
 * {@code master_repl_offset} does: the byte at offset {@code o} (1-based) sits at {@code (o - 1) % capacity}.
 * A replica that asks to continue from offset {@code o} ({@code PSYNC replid o}) can be served when
 * {@code firstByteOffset() <= o <= offset() + 1}.
 *
 * <p>Thread-safety: not thread-safe; {@link ReplicationStream} guards every call with its own lock.
 */
final class ReplicationBacklog {
    private byte[] ring;
    /** Offset of the last byte appended (Redis's master_repl_offset). */
    private long offset;
    /** Bytes of history held, at most the ring's length. */
    private long histlen;

    ReplicationBacklog(int capacity, long startOffset) {
        ring = new byte[Math.max(16 * 1024, capacity)];
        offset = startOffset;
    }

    long offset() {
        return offset;
    }

    long histlen() {
        return histlen;
    }

    int capacity() {
        return ring.length;
    }

    /** Redis's repl_backlog_first_byte_offset: the oldest byte held (offset + 1 when empty). */
    long firstByteOffset() {
        return offset - histlen + 1;
    }

    /** True when every byte from {@code from} (1-based) onward is held. */
    boolean holdsFrom(long from) {
        return from >= firstByteOffset() && from <= offset + 1;
    }

    void append(byte[] b, int off, int len) {
        int cap = ring.length;
        if (len >= cap) { // only the tail fits
            off += len - cap;
            offset += len - cap;
            len = cap;
        }
        int pos = (int) (offset % cap);
        int first = Math.min(len, cap - pos);
        System.arraycopy(b, off, ring, pos, first);
        if (first < len) {
            System.arraycopy(b, off + first, ring, 0, len - first);
        }
        offset += len;
        histlen = Math.min(cap, histlen + len);
    }

    /**
     * Copies the bytes from offset {@code from} (1-based, {@link #holdsFrom} true) to the end, at most
     * {@code max}, into {@code dst}; returns how many.
     */
    int copy(long from, byte[] dst, int max) {
        int n = (int) Math.min(max, offset - from + 1);
        if (n <= 0) {
            return 0;
        }
        int cap = ring.length;
        int pos = (int) ((from - 1) % cap);
        int first = Math.min(n, cap - pos);
        System.arraycopy(ring, pos, dst, 0, first);
        if (first < n) {
            System.arraycopy(ring, 0, dst, first, n - first);
        }
        return n;
    }

    /** CONFIG SET repl-backlog-size: a new ring keeping as much of the history as fits. */
    void resize(int capacity) {
        capacity = Math.max(16 * 1024, capacity);
        if (capacity == ring.length) {
            return;
        }
        int keep = (int) Math.min(histlen, capacity);
        byte[] tail = new byte[keep];
        copy(offset - keep + 1, tail, keep);
        long end = offset;
        ring = new byte[capacity];
        offset = end - keep;
        histlen = 0;
        append(tail, 0, keep);
    }
}
