package dev.spinel.server.engine;

import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.engine.clients.MemoryAccounting;
import dev.spinel.server.errors.RedisError;
import dev.spinel.server.stats.LazyFree;
import dev.spinel.store.Database;
import dev.spinel.store.Entry;
import dev.spinel.store.KeyHash;
import dev.spinel.store.Keyspace;
import dev.spinel.store.Segment;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;

/**
 * {@code maxmemory}: before a command that may grow the dataset (Redis's {@code denyoom} flag) runs,
 * keys are evicted by {@code maxmemory-policy} until the dataset's accounted memory is back under the
 * limit, as Redis's {@code performEvictions} does; when nothing can be evicted (noeviction, or no
 * volatile key for a volatile-* policy) the command is refused with Redis's OOM error. Candidates are
 * chosen from {@code maxmemory-samples} random keys: the oldest access (LRU), the lowest frequency
 * counter (LFU), the nearest expiry (TTL) or any (random).
 *
 * <p>Memory is {@link MemoryAccounting#used()}: the store's own accounting of the dataset ({@link Segment#memory()})
 * plus the server's overhead (start-up baseline, clients' buffers, scripts), not the JVM heap. Thread-safety:
 * any loop may evict; each deletion happens under the victim's stripe lock, re-checked there.
 */
public final class Evictor {
    /** Redis's shared.oomerr. */
    public static final RedisError OOM = new RedisError("OOM command not allowed when used memory > 'maxmemory'.");

    private final ServerConfig config;
    private final Keyspace keyspace;
    private final Engine engine;
    private final MemoryAccounting memory;
    private final LongAdder evicted = new LongAdder();

    Evictor(ServerConfig config, Keyspace keyspace, Engine engine, MemoryAccounting memory) {
        this.config = config;
        this.keyspace = keyspace;
        this.engine = engine;
        this.memory = memory;
    }

    /** Keys evicted since start (INFO evicted_keys). */
    public long evictedKeys() {
        return evicted.sum();
    }

    /** CONFIG RESETSTAT: evicted_keys starts again from 0, as Redis's resetServerStats. */
    public void resetStats() {
        evicted.reset();
    }

    /** Redis's used_memory as the maxmemory check reads it: without what the replicas' output holds. */
    public long usedMemory() {
        return memory.usedForEviction();
    }

    /**
     * Evicts as needed; false when still over the limit (the caller answers {@link #OOM}). A replica does neither
     * while {@code replica-ignore-maxmemory} is on (Redis's default, its isSafeToPerformEvictions): keys it evicted on
     * its own would be missing from its copy of the master's data.
     */
    boolean makeRoom() {
        long max = config.maxmemory.value();
        if (max <= 0 || (engine.replicaRole().active() && config.replicaIgnoreMaxmemory.value())) {
            return true;
        }
        String policy = config.maxmemoryPolicy.value();
        int guard = 0;
        while (usedMemory() > max) {
            if (policy.equals("noeviction") || !evictOne(policy) || ++guard > 100_000) {
                return false;
            }
        }
        return true;
    }

    private boolean evictOne(String policy) {
        boolean volatileOnly = policy.startsWith("volatile-");
        int samples = (int) Math.max(1, config.maxmemorySamples.value());
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        Database bestDb = null;
        byte[] bestKey = null;
        long bestScore = Long.MIN_VALUE;
        List<Database> candidates = new ArrayList<>();
        for (int d = 0; d < keyspace.databases(); d++) {
            if (hasCandidates(keyspace.db(d), volatileOnly)) {
                candidates.add(keyspace.db(d));
            }
        }
        if (candidates.isEmpty()) {
            return false;
        }
        int attempts = samples * (volatileOnly ? 20 : 4);
        int found = 0;
        for (int a = 0; a < attempts && found < samples; a++) {
            Database db = candidates.get(rnd.nextInt(candidates.size()));
            Segment seg = nonEmptySegment(db, rnd.nextInt(Database.SEGMENTS), volatileOnly);
            if (seg == null) {
                continue;
            }
            seg.lock();
            try {
                Entry e = seg.randomEntry(rnd);
                if (e == null || (volatileOnly && e.expireAt() < 0)) {
                    continue;
                }
                found++;
                long score = score(policy, e, rnd);
                if (bestKey == null || score > bestScore) {
                    bestScore = score;
                    bestKey = e.key();
                    bestDb = db;
                }
            } finally {
                seg.unlock();
            }
        }
        if (bestKey == null) {
            return false;
        }
        int h = KeyHash.hash(bestKey);
        Segment seg = bestDb.segment(h);
        seg.lock();
        try {
            Entry e = seg.find(bestKey, 0, bestKey.length, h);
            if (e == null) {
                return true; // gone meanwhile: memory changed anyway, look again
            }
            seg.removeEntry(e);
            evicted.increment();
            if (config.lazyfreeLazyEviction.value()) {
                LazyFree.freed(engine.stats(), e.storedValue()); // the value as held: no copy of a string
            }
            engine.keyEvents().evicted(bestDb.index(), bestKey);
        } finally {
            seg.unlock();
        }
        return true;
    }

    /** Racy pre-checks (plain reads of the stripes' counters): every choice is re-checked under the lock. */
    private static boolean hasCandidates(Database db, boolean volatileOnly) {
        for (int i = 0; i < Database.SEGMENTS; i++) {
            Segment s = db.segmentAt(i);
            if (volatileOnly ? s.volatileCount() > 0 : s.size() > 0) {
                return true;
            }
        }
        return false;
    }

    private static Segment nonEmptySegment(Database db, int start, boolean volatileOnly) {
        for (int k = 0; k < Database.SEGMENTS; k++) {
            Segment s = db.segmentAt((start + k) & (Database.SEGMENTS - 1));
            if (volatileOnly ? s.volatileCount() > 0 : s.size() > 0) {
                return s;
            }
        }
        return null;
    }

    /** Higher is a better victim. */
    private long score(String policy, Entry e, ThreadLocalRandom rnd) {
        return switch (policy) {
            case "allkeys-lru", "volatile-lru" -> keyspace.idleSeconds(e);
            case "allkeys-lfu", "volatile-lfu" -> 255 - keyspace.lfuCounter(e);
            case "volatile-ttl" -> -e.expireAt();
            default -> rnd.nextLong();
        };
    }
}
