package dev.spinel.server.replication;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static dev.spinel.server.replication.ReplicationTest.awaitInSync;
import static dev.spinel.server.replication.ReplicationTest.info;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Two replica settings of Redis 7.0 that Redis's default redis.conf names, a Spinel replica beside a redis-server
 * replica of the same redis-server master: {@code replica-ignore-maxmemory} (on by default: a replica over its
 * maxmemory evicts nothing, its master's DELs keep it an exact copy; off: it evicts) and {@code replica-lazy-flush}
 * (a full resync counts the keys it drops in lazyfreed_objects).
 */
class ReplicaMaxmemoryAndFlushDiffTest {
    private static final int KEYS = 20_000;

    /** What a replica holds after its master wrote more than the replica's maxmemory. */
    private static List<String> overMaxmemory(int replicaPort, RawClient m, boolean ignore) throws Exception {
        List<String> out = new ArrayList<>();
        try (RawClient r = new RawClient(replicaPort)) {
            r.call("CONFIG", "SET", "maxmemory", "2mb", "maxmemory-policy", "allkeys-lru");
            r.call("CONFIG", "SET", "replica-ignore-maxmemory", ignore ? "yes" : "no");
            for (int i = 0; i < KEYS; i++) {
                m.send(List.of("SET".getBytes(), ("key:" + i).getBytes(), new byte[100]));
            }
            for (int i = 0; i < KEYS; i++) {
                m.readReply();
            }
            awaitInSync(m, r);
            long size = Long.parseLong(r.callString("DBSIZE").substring(1).strip());
            Map<String, String> stats = info(r);
            out.add(ignore ? "dbsize " + size : "evicted " + (size < KEYS));
            if (ignore) { // (redis-server's evicted_keys lags its evictions on a replica: read only when there are none)
                out.add("evicted_keys " + stats.get("evicted_keys"));
            }
            r.call("CONFIG", "SET", "maxmemory", "0");
        }
        m.call("FLUSHALL");
        return out;
    }

    /** lazyfreed_objects of a replica with 300 keys of its own after its first full resync from {@code master}. */
    private static String lazyFlush(int replicaPort, int master) throws Exception {
        try (RawClient r = new RawClient(replicaPort); RawClient m = new RawClient(master)) {
            r.call("CONFIG", "SET", "replica-lazy-flush", "yes");
            for (int i = 0; i < 300; i++) {
                r.call("SET", "own:" + i, "v");
            }
            m.call("SET", "from-master", "1");
            r.call("REPLICAOF", "127.0.0.1", Integer.toString(master));
            awaitInSync(m, r);
            String memory = r.callString("INFO", "memory");
            String freed = memory.lines().filter(l -> l.startsWith("lazyfreed_objects:")).findFirst().orElse("none").strip();
            return freed + " dbsize " + r.callString("DBSIZE").strip();
        }
    }

    private static List<String> transcript(int replicaPort, RedisServerProcess master) throws Exception {
        List<String> out = new ArrayList<>();
        out.add(lazyFlush(replicaPort, master.port()));
        try (RawClient m = new RawClient(master.port())) {
            out.addAll(overMaxmemory(replicaPort, m, true));
            out.addAll(overMaxmemory(replicaPort, m, false));
        }
        return out;
    }

    @Test
    void replicasKeepTheirMastersDataAsRedisDoes() throws Exception {
        List<String> redis;
        try (RedisServerProcess master = RedisServerProcess.start("--repl-diskless-sync-delay", "0");
             RedisServerProcess replica = RedisServerProcess.start()) {
            redis = transcript(replica.port(), master);
        }
        try (RedisServerProcess master = RedisServerProcess.start("--repl-diskless-sync-delay", "0");
             SpinelServer replica = SpinelServer.start(ServerConfig.defaults().with("port", "0"))) {
            assertEquals(redis, transcript(replica.port(), master));
        }
        assertEquals("lazyfreed_objects:300 dbsize :1", redis.getFirst());
        assertEquals("dbsize " + (KEYS + 1), redis.get(1)); // and the key written before the resync
    }
}
