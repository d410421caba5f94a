package dev.spinel.server.stats;

import dev.spinel.store.types.HashValue;
import dev.spinel.store.types.ListValue;
import dev.spinel.store.types.SetValue;
import dev.spinel.store.types.ZSetValue;
import dev.spinel.store.types.stream.StreamGroup;
import dev.spinel.store.types.stream.StreamValue;

/**
 * INFO's {@code lazyfreed_objects} as Redis 7.0 counts it. Spinel frees nothing itself (the GC reclaims a
 * dropped value in the background, whatever the command), so nothing is ever pending
 * ({@code lazyfree_pending_objects} 0); but it counts what Redis would have handed to its lazy-free thread:
 * a value deleted asynchronously whose free effort (Redis's lazyfreeGetFreeEffort: the allocations to free)
 * exceeds 64 (UNLINK; DEL with {@code lazyfree-lazy-user-del}; a key expired, lazily or actively, with
 * {@code lazyfree-lazy-expire}; evicted with {@code lazyfree-lazy-eviction}; a value overwritten with
 * {@code lazyfree-lazy-server-del}), and each key of a database FLUSHDB/FLUSHALL ASYNC empties.
 *
 * <p>The effort is Redis's for hash tables, skip lists and stream groups; a list's quicklist nodes and a
 * stream's radix-tree nodes, which Spinel does not have, are estimated (8 KB per list node, as
 * {@code list-max-listpack-size -2}; one node per stream listpack). Thread-safety: stateless; the value is
 * read under its key's stripe lock.
 */
public final class LazyFree {
    /** Redis's LAZYFREE_THRESHOLD. */
    private static final long THRESHOLD = 64;
    private static final long LIST_NODE_BYTES = 8192;

    private LazyFree() {
    }

    /** A value deleted asynchronously: counted when Redis would have freed it in the background. */
    public static void freed(ServerStats stats, Object value) {
        if (effort(value) > THRESHOLD) {
            stats.lazyfreedObjects.increment();
        }
    }

    /** A value Spinel changed in place but Redis replaced and freed asynchronously, of the given free effort. */
    public static void freedEffort(ServerStats stats, long effort) {
        if (effort > THRESHOLD) {
            stats.lazyfreedObjects.increment();
        }
    }

    /** Redis's lazyfreeGetFreeEffort. */
    static long effort(Object value) {
        return switch (value) {
            case ListValue l -> l.compact() ? 1 : Math.max(1, (l.memoryUsage() + LIST_NODE_BYTES - 1) / LIST_NODE_BYTES);
            case SetValue v -> "hashtable".equals(v.encoding()) ? v.size() : 1;
            case HashValue v -> "hashtable".equals(v.encoding()) ? v.size() : 1;
            case ZSetValue v -> "skiplist".equals(v.encoding()) ? v.size() : 1;
            case StreamValue v -> {
                long effort = v.nodeCount();
                if (v.groupCount() > 0) {
                    // Redis: every group and its PEL entries, the first group's PEL standing for all
                    StreamGroup first = v.groups().values().iterator().next();
                    effort += (long) v.groupCount() * (1 + first.pending.size());
                }
                yield effort;
            }
            default -> 1;
        };
    }
}
