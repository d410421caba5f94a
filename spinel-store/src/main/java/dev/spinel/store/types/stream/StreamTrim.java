package dev.spinel.store.types.stream;

import dev.spinel.store.types.ListpackElements;

/**
 * Redis 7.0's streamTrim on a {@link StreamValue}: whole nodes are dropped from the head while the
 * strategy allows; an exact trim then flags entries of the first remaining node deleted (and updates
 * its counters), an approximate one stops at the first node it cannot drop whole; {@code limit} caps
 * the entries removed. The first ID is recomputed afterwards.
 *
 * <p>Stateless; the caller holds the stream's segment lock.
 */
final class StreamTrim {
    private StreamTrim() {
    }

    static long trim(StreamValue s, boolean byMaxLen, long maxLen, long minMs, long minSeq, boolean approx, long limit) {
        long deleted = 0;
        while (s.nodeCount > 0) {
            if (byMaxLen && s.length <= maxLen) {
                break;
            }
            byte[] n = s.nodes[0];
            long entries = ListpackElements.intAt(n, 0);
            if (limit != 0 && deleted + entries > limit) {
                break;
            }
            boolean removeNode;
            if (byMaxLen) {
                removeNode = s.length - entries >= maxLen;
            } else {
                StreamCursor last = new StreamCursor(s, 0, 0, -1L, -1L, true, true);
                last.enterNode(0);
                last.nextInNode();
                removeNode = StreamId.compare(last.ms(), last.seq(), minMs, minSeq) < 0;
            }
            if (removeNode) {
                s.removeNode(0);
                s.length -= entries;
                deleted += entries;
                continue;
            }
            if (approx) {
                break;
            }
            StreamCursor c = new StreamCursor(s, 0, 0, -1L, -1L, false, true);
            c.enterNode(0);
            long fromNode = 0;
            while (c.nextInNode()) {
                boolean stop = byMaxLen ? s.length <= maxLen : StreamId.compare(c.ms(), c.seq(), minMs, minSeq) >= 0;
                if (stop) {
                    break;
                }
                if (!c.currentDeleted()) {
                    c.flagCurrentDeleted();
                    fromNode++;
                    s.length--;
                }
            }
            deleted += fromNode;
            s.replaceInt(0, 0, entries - fromNode);
            n = s.nodes[0];
            int p = ListpackElements.next(n, 0);
            s.replaceInt(0, p, ListpackElements.intAt(n, p) + fromNode);
            break;
        }
        if (s.length == 0) {
            s.firstMs = 0;
            s.firstSeq = 0;
        } else {
            s.refreshFirstId();
        }
        return deleted;
    }
}
