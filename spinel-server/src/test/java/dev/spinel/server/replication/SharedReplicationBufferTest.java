package dev.spinel.server.replication;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static dev.spinel.server.testing.Await.waitFor;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The stream written during a full resync stays in the backlog, which grows for the replicas that will need it, and
 * is not copied per replica: Redis 7.0's shared replication buffer (replication-buffer.tcl "All replicas share one
 * global replication buffer", "Replication buffer will become smaller when no replica uses"). Two replicas wait for
 * a slow RDB while 1 MB is written: the buffers hold it once; one replica going changes nothing, the last one going
 * gives the memory back. Before, each waiting replica held its own copy.
 */
class SharedReplicationBufferTest {
    private static Map<String, Long> memory(RawClient c) throws Exception {
        Map<String, Long> m = new HashMap<>();
        for (String line : c.callString("INFO", "memory").split("\r\n")) {
            int i = line.indexOf(':');
            if (line.startsWith("mem_") && i > 0) {
                try {
                    m.put(line.substring(0, i), Long.parseLong(line.substring(i + 1)));
                } catch (NumberFormatException notANumber) {
                    // a ratio or a human-readable figure
                }
            }
        }
        return m;
    }

    @Test
    void replicasInAFullResyncShareTheBacklog() throws Exception {
        try (SpinelServer spinel = SpinelServer.start(ServerConfig.defaults().with("port", "0"));
             RedisServerProcess r1 = RedisServerProcess.start();
             RedisServerProcess r2 = RedisServerProcess.start();
             RawClient m = new RawClient(spinel.port()); RawClient c1 = new RawClient(r1.port());
             RawClient c2 = new RawClient(r2.port())) {
            m.callString("CONFIG", "SET", "repl-backlog-size", "16384");
            m.callString("CONFIG", "SET", "client-output-buffer-limit", "replica 0 0 0");
            m.callString("CONFIG", "SET", "repl-diskless-sync-max-replicas", "2");
            m.callString("CONFIG", "SET", "rdb-key-save-delay", "1000000");
            for (int i = 0; i < 20; i++) {
                m.callString("SET", "key" + i, "v");
            }
            c1.callString("REPLICAOF", "127.0.0.1", Integer.toString(spinel.port()));
            c2.callString("REPLICAOF", "127.0.0.1", Integer.toString(spinel.port()));
            waitFor(() -> m.callString("INFO", "persistence").contains("rdb_bgsave_in_progress:1")
                    && m.callString("INFO", "replication").contains("connected_slaves:2"), "both replicas in the full resync");
            String value = "x".repeat(1024);
            for (int i = 0; i < 1024; i++) {
                m.callString("SET", "big" + i, value);
            }
            Map<String, Long> both = memory(m);
            long total = both.get("mem_total_replication_buffers");
            // Redis 7.0's split of its one buffer: repl-backlog-size is the backlog's, what it grew past that for them the replicas'
            assertTrue(both.get("mem_clients_slaves") > 1L << 20, "the backlog keeps the stream for them: " + both);
            assertEquals(16384L, both.get("mem_replication_backlog"), "the backlog's own part: " + both);
            assertTrue(total < (5L << 20) / 2 + (256 << 10), "held once (in a ring grown by doubling), not per replica: " + both);

            c1.callString("REPLICAOF", "NO", "ONE");
            waitFor(() -> m.callString("INFO", "replication").contains("connected_slaves:1"), "one replica gone");
            assertEquals(total, memory(m).get("mem_total_replication_buffers"), "the other still needs all of it");

            c2.callString("REPLICAOF", "NO", "ONE");
            waitFor(() -> m.callString("INFO", "replication").contains("connected_slaves:0"), "both replicas gone");
            waitFor(() -> memory(m).get("mem_total_replication_buffers") < total - (1L << 20), "the buffer given back");
        }
    }
}
