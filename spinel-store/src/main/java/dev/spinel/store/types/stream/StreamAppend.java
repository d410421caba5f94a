package dev.spinel.store.types.stream;

import dev.spinel.store.types.ListpackElements;

import java.util.Arrays;

/**
 * XADD's append to a {@link StreamValue} (Redis 7.0's streamAppendItem): the new entry's ID from what was
 * given, then the entry added to the tail node, or to a new node once the tail reached
 * {@code stream-node-max-bytes} or {@code stream-node-max-entries}; an entry with the node master's fields
 * stores only its values (SAMEFIELDS).
 *
 * <p>Stateless; the caller holds the stream's segment lock.
 */
final class StreamAppend {
    private StreamAppend() {
    }

    /** See {@link StreamValue#append}. */
    static int append(StreamValue s, boolean idGiven, boolean seqGiven, long ms, long seq, long now, byte[] buf, int[] offLen) {
        long idMs;
        long idSeq;
        if (idGiven && seqGiven) {
            idMs = ms;
            idSeq = seq;
        } else if (idGiven) {
            if (s.lastMs == ms) {
                if (s.lastSeq == -1L) {
                    return StreamValue.TOO_LARGE; // Redis 7.0 fails here without setting errno: XADD answers "too large"
                }
                idMs = ms;
                idSeq = s.lastSeq + 1;
            } else {
                idMs = ms;
                idSeq = 0;
            }
        } else if (Long.compareUnsigned(now, s.lastMs) > 0) {
            idMs = now;
            idSeq = 0;
        } else if (s.lastSeq == -1L) {
            if (s.lastMs == -1L) {
                return StreamValue.ID_TOO_SMALL;
            }
            idMs = s.lastMs + 1;
            idSeq = 0;
        } else {
            idMs = s.lastMs;
            idSeq = s.lastSeq + 1;
        }
        if (StreamId.compare(idMs, idSeq, s.lastMs, s.lastSeq) <= 0) {
            return StreamValue.ID_TOO_SMALL;
        }
        int numFields = offLen.length / 4;
        long totalLen = 0;
        for (int i = 1; i < offLen.length; i += 2) {
            totalLen += offLen[i];
        }
        if (totalLen > StreamValue.LISTPACK_MAX_SIZE) {
            return StreamValue.TOO_LARGE;
        }
        int tail = s.nodeCount - 1;
        if (tail >= 0) {
            long maxBytes = s.settings.streamNodeMaxBytes();
            if (maxBytes == 0 || maxBytes > StreamValue.LISTPACK_MAX_SIZE) {
                maxBytes = StreamValue.LISTPACK_MAX_SIZE;
            }
            long maxEntries = s.settings.streamNodeMaxEntries();
            byte[] n = s.nodes[tail];
            if (s.used[tail] + ListpackElements.OVERHEAD + totalLen >= maxBytes) {
                tail = -1;
            } else if (maxEntries != 0) {
                int p1 = ListpackElements.next(n, 0);
                long count = ListpackElements.intAt(n, 0) + ListpackElements.intAt(n, p1);
                if (count >= maxEntries) {
                    tail = -1;
                }
            }
            if (tail < 0) {
                int t = s.nodeCount - 1;
                s.nodeArrayBytes -= s.nodes[t].length - s.used[t];
                s.nodes[t] = Arrays.copyOf(s.nodes[t], s.used[t]); // a full node keeps no spare room
            }
        }
        int flags = 0;
        if (tail < 0) {
            int size = ListpackElements.intSize(1) + ListpackElements.intSize(0) + ListpackElements.intSize(numFields)
                    + ListpackElements.intSize(0);
            for (int i = 0; i < numFields; i++) {
                size += ListpackElements.stringSize(buf, offLen[4 * i], offLen[4 * i + 1]);
            }
            byte[] n = new byte[size + 64];
            int p = ListpackElements.writeInt(n, 0, 1);
            p = ListpackElements.writeInt(n, p, 0);
            p = ListpackElements.writeInt(n, p, numFields);
            for (int i = 0; i < numFields; i++) {
                p = ListpackElements.writeString(n, p, buf, offLen[4 * i], offLen[4 * i + 1]);
            }
            p = ListpackElements.writeInt(n, p, 0);
            s.insertNode(s.nodeCount, idMs, idSeq, n, p);
            tail = s.nodeCount - 1;
            flags = StreamValue.FLAG_SAMEFIELDS;
        } else {
            byte[] n = s.nodes[tail];
            long count = ListpackElements.intAt(n, 0);
            s.replaceInt(tail, 0, count + 1);
            n = s.nodes[tail];
            int p = ListpackElements.next(n, ListpackElements.next(n, 0));
            long masterFields = ListpackElements.intAt(n, p);
            p = ListpackElements.next(n, p);
            if (masterFields == numFields) {
                byte[] scratch = new byte[24];
                int i = 0;
                for (; i < numFields; i++) {
                    if (!ListpackElements.equalsString(n, p, buf, offLen[4 * i], offLen[4 * i + 1], scratch)) {
                        break;
                    }
                    p = ListpackElements.next(n, p);
                }
                if (i == numFields) {
                    flags = StreamValue.FLAG_SAMEFIELDS;
                }
            }
        }
        boolean same = flags == StreamValue.FLAG_SAMEFIELDS;
        long msDelta = idMs - s.nodeMs[tail];
        long seqDelta = idSeq - s.nodeSeq[tail];
        int size = ListpackElements.intSize(flags) + ListpackElements.intSize(msDelta) + ListpackElements.intSize(seqDelta);
        if (!same) {
            size += ListpackElements.intSize(numFields);
        }
        for (int i = 0; i < numFields; i++) {
            if (!same) {
                size += ListpackElements.stringSize(buf, offLen[4 * i], offLen[4 * i + 1]);
            }
            size += ListpackElements.stringSize(buf, offLen[4 * i + 2], offLen[4 * i + 3]);
        }
        long lpCount = numFields + 3 + (same ? 0 : numFields + 1);
        size += ListpackElements.intSize(lpCount);
        s.ensure(tail, size);
        byte[] n = s.nodes[tail];
        int p = s.used[tail];
        p = ListpackElements.writeInt(n, p, flags);
        p = ListpackElements.writeInt(n, p, msDelta);
        p = ListpackElements.writeInt(n, p, seqDelta);
        if (!same) {
            p = ListpackElements.writeInt(n, p, numFields);
        }
        for (int i = 0; i < numFields; i++) {
            if (!same) {
                p = ListpackElements.writeString(n, p, buf, offLen[4 * i], offLen[4 * i + 1]);
            }
            p = ListpackElements.writeString(n, p, buf, offLen[4 * i + 2], offLen[4 * i + 3]);
        }
        p = ListpackElements.writeInt(n, p, lpCount);
        s.used[tail] = p;
        s.length++;
        s.entriesAdded++;
        s.lastMs = idMs;
        s.lastSeq = idSeq;
        if (s.length == 1) {
            s.firstMs = idMs;
            s.firstSeq = idSeq;
        }
        return StreamValue.APPENDED;
    }
}
