package dev.spinel.server.cluster;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static dev.spinel.server.cluster.ClusterFailoverTest.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code repl-diskless-load swapdb} on a cluster replica (Redis's legacy cluster test 17-diskless-load-swapdb): the
 * replica, restarted after its primary moved on past the backlog, full-syncs from the same history as an asynchronous
 * load (async_loading:1) while serving its old keys, by key and by slot (CLUSTER GETKEYSINSLOT, the slot index); a
 * link cut halfway leaves both as they were; a load that completes brings the new keys and their slot index together.
 * Cluster mode used to load the RDB in place (its slot-indexed keyspace could not be swapped), async_loading:0
 * throughout.
 */
class ClusterSwapdbLoadTest {
    private static final int[] PRIMARIES = {21641, 21642, 21643};
    private static final int REPLICA = 21644;

    private SpinelServer[] nodes;
    private SpinelServer replica;

    @AfterEach
    void tearDown() {
        if (replica != null) {
            replica.close();
        }
        ClusterNodes.closeAll(nodes);
    }

    /** The replica: swapdb, no snapshot of its own but SAVE's. */
    private static SpinelServer startReplica(Path dir) {
        return SpinelServer.start(ServerConfig.defaults().with("port", Integer.toString(REPLICA)).with("cluster-enabled", "yes")
                .with("repl-diskless-load", "swapdb").with("save", "").with("dir", dir.toString()));
    }

    private static String call(RawClient c, String... args) throws IOException {
        return c.callString(args);
    }

    private static String info(int port, String field) {
        try (RawClient c = new RawClient(port)) {
            for (String line : c.callString("INFO").split("\r\n")) {
                if (line.startsWith(field + ":")) {
                    return line.substring(field.length() + 1);
                }
            }
        } catch (IOException down) {
            return "";
        }
        return "";
    }

    @Test
    @Timeout(240)
    void aClusterReplicaLoadsAsideServingItsOldKeysAndKeepsThemWhenTheLoadFails() throws Exception {
        nodes = ClusterNodes.create("swapdb", PRIMARIES, i -> ServerConfig.defaults());
        int primary = PRIMARIES[0]; // slot 0 (key "06S") is the first primary's, as redis-cli --cluster create splits
        String primaryId = ClusterNodes.call(primary, "CLUSTER", "MYID").split("\r\n")[1];
        Path dir = Files.createTempDirectory("spinel-swapdb-replica");
        replica = startReplica(dir);
        assertEquals("+OK\r\n", ClusterNodes.call(primary, "CLUSTER", "MEET", "127.0.0.1", Integer.toString(REPLICA)));
        ClusterNodes.awaitWholeCluster(REPLICA, 4);
        assertEquals("+OK\r\n", ClusterNodes.call(REPLICA, "CLUSTER", "REPLICATE", primaryId));
        assertEquals("+OK\r\n", ClusterNodes.call(primary, "SET", "06S", "1"));
        await("the replica never got 06S", 30_000, () -> {
            try (RawClient c = new RawClient(REPLICA)) {
                call(c, "READONLY");
                return call(c, "GET", "06S").equals("$1\r\n1\r\n");
            }
        });
        assertEquals("+OK\r\n", ClusterNodes.call(REPLICA, "SAVE"));
        replica.close();
        replica = null;

        // past the primary's backlog: the restarted replica's PSYNC (same history) becomes a full resync
        try (RawClient p = new RawClient(primary)) {
            assertEquals("+OK\r\n", call(p, "CONFIG", "SET", "repl-backlog-size", "1024"));
            assertEquals("+OK\r\n", call(p, "CONFIG", "SET", "rdb-key-save-delay", "2000"));
            assertEquals(":1\r\n", call(p, "DEL", "06S"));
            String value = "A".repeat(1024);
            for (int i = 0; i < 3000; i++) {
                // hash-tagged into slot 0's primary: {06S} is slot 0
                assertEquals("+OK\r\n", call(p, "SET", "{06S}" + i, value));
            }
        }
        replica = startReplica(dir);
        try (RawClient c = new RawClient(REPLICA)) {
            await("the replica never loaded asynchronously", 30_000, () -> info(REPLICA, "async_loading").equals("1"));
            assertEquals("0", info(REPLICA, "loading"));
            call(c, "READONLY");
            assertEquals("$1\r\n1\r\n", call(c, "GET", "06S")); // the old dataset, served during the load
            assertEquals("*1\r\n$3\r\n06S\r\n", call(c, "CLUSTER", "GETKEYSINSLOT", "0", "1"));
            assertEquals(":1\r\n", call(c, "CLUSTER", "COUNTKEYSINSLOT", "0"));

            // the primary drops the link halfway through the RDB (3000 keys × 2 ms): the load fails, the replica
            // reconnects and full-syncs again, aside again, the old keys served until that load is done
            long syncs = Long.parseLong(info(primary, "sync_full"));
            assertEquals(":1\r\n", ClusterNodes.call(primary, "CLIENT", "KILL", "TYPE", "replica"));
            await("the replica never started over", 20_000, () -> Long.parseLong(info(primary, "sync_full")) > syncs);
            assertEquals("$1\r\n1\r\n", call(c, "GET", "06S"));
            assertEquals("*1\r\n$3\r\n06S\r\n", call(c, "CLUSTER", "GETKEYSINSLOT", "0", "1"));
            assertEquals(":1\r\n", call(c, "CLUSTER", "COUNTKEYSINSLOT", "0"));
            assertEquals(":1\r\n", call(c, "DBSIZE"));

            // the second load completes: the keys and their slot index change hands together
            await("the replica never finished its load", 60_000,
                    () -> info(REPLICA, "async_loading").equals("0") && info(REPLICA, "master_link_status").equals("up"));
            assertEquals("$-1\r\n", call(c, "GET", "06S"));
            assertEquals(":3000\r\n", call(c, "CLUSTER", "COUNTKEYSINSLOT", "0"));
            assertEquals(":3000\r\n", call(c, "DBSIZE"));
            String first = call(c, "CLUSTER", "GETKEYSINSLOT", "0", "1");
            assertTrue(first.matches("\\*1\r\n\\$\\d\r\n\\{06S}\\d+\r\n"), first);
        }
    }
}
