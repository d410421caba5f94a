package dev.spinel.server.replication;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static dev.spinel.server.replication.ReplicationTest.awaitInSync;
import static dev.spinel.server.replication.ReplicationTest.info;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Chained replication as Redis 7.0: a replica of a replica gets the top master's stream forwarded
 * unchanged, so master_replid and master_repl_offset are the same all down the chain (Spinel in the
 * middle of two redis-servers, and three Spinels), datasets equal; the middle link dropping resumes with
 * +CONTINUE while the sub-replica stays attached.
 */
class ReplicationChainTest {
    private static ServerConfig spinel() {
        return ServerConfig.defaults().with("port", "0").with("repl-diskless-sync-delay", "0");
    }

    /**
     * The top's master_repl_offset and replid reached every node of the chain. A master's periodic PING
     * (repl-ping-replica-period) can land between two INFO reads on a loaded machine, so the nodes are read
     * again until one reading agrees or 10 s pass; the last reading is asserted. A reading after that one may
     * disagree: the top's active expiry deletes the workload's {@code SET short:k v PX 1} keys when its cycle comes
     * and propagates their DELs (~30 bytes each), which a replica can count before the top's INFO is read again.
     */
    private static void assertSameHistory(RawClient... chain) throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        List<Map<String, String>> reading = read(chain);
        while (System.nanoTime() < deadline && !agree(reading)) {
            Thread.sleep(50);
            reading = read(chain);
        }
        Map<String, String> top = reading.getFirst();
        for (int i = 1; i < chain.length; i++) {
            Map<String, String> n = reading.get(i);
            assertEquals(top.get("master_replid"), n.get("master_replid"), "node " + i);
            assertEquals(top.get("master_repl_offset"), n.get("master_repl_offset"), "node " + i);
            assertEquals(top.get("master_repl_offset"), n.get("slave_repl_offset"), "node " + i);
        }
    }

    /** One reading of every node's INFO, the top first. */
    private static List<Map<String, String>> read(RawClient... chain) throws Exception {
        List<Map<String, String>> out = new ArrayList<>();
        for (RawClient c : chain) {
            out.add(info(c));
        }
        return out;
    }

    private static boolean agree(List<Map<String, String>> reading) {
        String offset = reading.getFirst().get("master_repl_offset");
        for (int i = 1; i < reading.size(); i++) {
            Map<String, String> n = reading.get(i);
            if (!offset.equals(n.get("master_repl_offset")) || !offset.equals(n.get("slave_repl_offset"))) {
                return false;
            }
        }
        return true;
    }

    @Test
    void redisServerToSpinelToRedisServer() throws Exception {
        try (RedisServerProcess top = RedisServerProcess.start("--repl-diskless-sync-delay", "0");
             RawClient m = new RawClient(top.port())) {
            Workload.run(m, new Random(21), 300);
            try (SpinelServer middle = SpinelServer.start(spinel().with("replicaof", "127.0.0.1 " + top.port()));
                 RawClient mid = new RawClient(middle.port())) {
                awaitInSync(m, mid);
                try (RedisServerProcess leaf = RedisServerProcess.start("--replicaof", "127.0.0.1", Integer.toString(middle.port()),
                        "--loglevel", "notice");
                     RawClient l = new RawClient(leaf.port())) {
                    Workload.run(m, new Random(22), 1500);
                    awaitInSync(m, mid);
                    awaitInSync(m, l);
                    assertSameHistory(m, mid, l);
                    assertEquals(Dataset.of(m), Dataset.of(mid));
                    assertEquals(Dataset.of(m), Dataset.of(l));
                    // the redis-server leaf loaded Spinel's diskless payload ($EOF:<mark>, repl-diskless-sync's default)
                    String log = Files.readString(leaf.dir().resolve("redis.log"));
                    assertTrue(log.contains("receiving streamed RDB from master with EOF"), log);
                    Map<String, String> mi = info(mid);
                    assertEquals("slave", mi.get("role"));
                    assertEquals("1", mi.get("connected_slaves"));
                    assertTrue(mi.get("slave0").contains("state=online"), mi.get("slave0"));

                    // the top drops the middle: it continues (+CONTINUE), the leaf stays attached to it
                    m.callString("CLIENT", "KILL", "TYPE", "replica");
                    Workload.run(m, new Random(23), 300);
                    awaitInSync(m, mid);
                    awaitInSync(m, l);
                    assertSameHistory(m, mid, l);
                    assertEquals(Dataset.of(m), Dataset.of(l));
                    assertEquals("1", info(m).get("sync_partial_ok"));
                    assertEquals("1", info(mid).get("sync_full"));
                }
            }
        }
    }

    @Test
    void threeSpinels() throws Exception {
        try (SpinelServer top = SpinelServer.start(spinel());
             SpinelServer middle = SpinelServer.start(spinel());
             SpinelServer leaf = SpinelServer.start(spinel());
             RawClient m = new RawClient(top.port());
             RawClient mid = new RawClient(middle.port());
             RawClient l = new RawClient(leaf.port())) {
            Workload.run(m, new Random(24), 300);
            mid.callString("REPLICAOF", "127.0.0.1", Integer.toString(top.port()));
            awaitInSync(m, mid);
            // the middle's RDB for the leaf names the database its stream is in; no SELECT is added
            l.callString("REPLICAOF", "127.0.0.1", Integer.toString(middle.port()));
            Workload.run(m, new Random(25), 1500);
            awaitInSync(m, l);
            assertSameHistory(m, mid, l);
            assertEquals(Dataset.of(m), Dataset.of(l));
            assertEquals(":1\r\n", m.callString("WAIT", "1", "5000"));
            assertEquals(":1\r\n", mid.callString("CLIENT", "KILL", "TYPE", "replica"));
            Workload.run(m, new Random(26), 200);
            awaitInSync(m, l);
            assertSameHistory(m, mid, l);
            assertEquals(Dataset.of(m), Dataset.of(l));
            assertEquals("1", info(mid).get("sync_partial_ok"));
            assertEquals("1", info(mid).get("sync_full"));

            // the middle promoted: the leaf continues with it (+CONTINUE with the new ID), the top's writes stop there
            assertEquals("+OK\r\n", mid.callString("REPLICAOF", "NO", "ONE"));
            mid.callString("SET", "after-promotion", "1");
            awaitInSync(mid, l);
            assertEquals("$1\r\n1\r\n", l.callString("GET", "after-promotion"));
            assertEquals(info(mid).get("master_replid"), info(l).get("master_replid"));
            assertEquals("2", info(mid).get("sync_partial_ok"));
            assertEquals("1", info(mid).get("sync_full"));
        }
    }

    @Test
    void aReplicaWithoutItsMasterRefusesSync() throws Exception {
        int closed = RedisServerProcess.freePort();
        try (SpinelServer replica = SpinelServer.start(spinel().with("replicaof", "127.0.0.1 " + closed));
             RedisServerProcess redis = RedisServerProcess.start("--replicaof", "127.0.0.1", Integer.toString(closed));
             RawClient r = new RawClient(replica.port());
             RawClient x = new RawClient(redis.port())) {
            assertEquals(x.callString("SYNC"), r.callString("SYNC"));
        }
    }
}
