package dev.spinel.server.replication;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.spinel.server.replication.ReplicaTesting.attach;
import static dev.spinel.server.replication.ReplicaTesting.field;
import static dev.spinel.server.testing.Await.waitFor;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An online replica takes the stream from the buffer it shares with the backlog, as Redis 7.0's shared replication
 * buffer: what it has not taken is counted as its output (CLIENT LIST omem) and against {@code client-output-buffer-limit
 * replica}, whose hard limit counts as repl-backlog-size when below it (replication-buffer.tcl "Partial resynchronization
 * is successful even client-output-buffer-limit is less than repl-backlog-size"), and once it has taken a big write its
 * connection holds no copy of it ("Replica client-output-buffer size is limited to backlog_limit/16 when no replication
 * data is pending"). The same scenarios run with redis-server as the master and with Spinel, the replica a
 * redis-server. Before, Spinel copied the stream into the replica's connection at once, dropped a stopped replica over
 * the limit for bytes the backlog held anyway, and kept the copy's buffer after a big write.
 */
class OnlineReplicaSharedBufferTest {
    private static void caughtUp(RawClient m, RawClient r) throws Exception {
        waitFor(() -> field(r.callString("INFO", "replication"), "master_repl_offset")
                == field(m.callString("INFO", "replication"), "master_repl_offset"), "the replica caught up");
    }

    /** A stopped replica that has 6 MB to take, limit 512 KB, backlog 8 MB: kept, its omem past the limit. */
    private static List<String> heldWithinBacklog(int masterPort, RedisServerProcess replica) throws Exception {
        List<String> seen = new ArrayList<>();
        try (RawClient m = new RawClient(masterPort); RawClient r = new RawClient(replica.port())) {
            m.callString("CONFIG", "SET", "repl-backlog-size", "8mb");
            m.callString("CONFIG", "SET", "client-output-buffer-limit", "replica 512kb 0 0");
            attach(m, r, masterPort);
            signal("STOP", replica);
            try {
                String value = "v".repeat(1 << 20);
                for (int i = 0; i < 6; i++) {
                    m.callString("SET", "big" + i, value);
                }
                m.callString("SET", "small", "1"); // Redis checks the limit as a write adds a block
                long omem = field(m.callString("CLIENT", "LIST", "TYPE", "replica"), "omem");
                seen.add("omem over the limit: " + (omem > 512 * 1024));
                seen.add("connected_slaves:" + field(m.callString("INFO", "replication"), "connected_slaves"));
            } finally {
                signal("CONT", replica);
            }
            caughtUp(m, r);
            String stats = m.callString("INFO", "stats");
            seen.add("sync_full:" + field(stats, "sync_full") + " sync_partial_ok:" + field(stats, "sync_partial_ok"));
        }
        return seen;
    }

    /** A 256 KB write taken by a replica whose limit is 32 KB: what its connection holds afterwards is small. */
    private static List<String> bigWriteTaken(int masterPort, RedisServerProcess replica) throws Exception {
        List<String> seen = new ArrayList<>();
        try (RawClient m = new RawClient(masterPort); RawClient r = new RawClient(replica.port())) {
            m.callString("CONFIG", "SET", "repl-backlog-size", "16384");
            m.callString("CONFIG", "SET", "client-output-buffer-limit", "replica 32768 32768 60");
            attach(m, r, masterPort);
            m.callString("SET", "key", "x".repeat(256 * 1024));
            caughtUp(m, r);
            m.callString("SET", "key1", "1");
            caughtUp(m, r);
            seen.add("connected_slaves:" + field(m.callString("INFO", "replication"), "connected_slaves"));
            waitFor(() -> field(m.callString("CLIENT", "LIST", "TYPE", "replica"), "tot-mem") < 256 * 1024,
                    "the replica's connection holds less than the write");
            seen.add("sync_partial_ok:" + field(m.callString("INFO", "stats"), "sync_partial_ok"));
        }
        return seen;
    }

    @Test
    void aStoppedReplicaWithinTheBacklogIsKeptPastItsLimit() throws Exception {
        List<String> expected;
        try (RedisServerProcess master = RedisServerProcess.start("--repl-diskless-sync-delay", "0"); RedisServerProcess replica = RedisServerProcess.start()) {
            expected = heldWithinBacklog(master.port(), replica);
        }
        assertEquals(List.of("omem over the limit: true", "connected_slaves:1", "sync_full:1 sync_partial_ok:0"), expected);
        try (SpinelServer master = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("repl-diskless-sync-delay", "0"));
             RedisServerProcess replica = RedisServerProcess.start()) {
            assertEquals(expected, heldWithinBacklog(master.port(), replica));
            RawClient m = new RawClient(master.port());
            try (m) {
                String memory = m.callString("INFO", "memory");
                assertTrue(field(memory, "mem_clients_slaves") < 256 * 1024, "caught up, nothing held past the backlog: " + memory);
            }
        }
    }

    @Test
    void aReplicaThatTookABigWriteHoldsNoCopyOfIt() throws Exception {
        List<String> expected;
        try (RedisServerProcess master = RedisServerProcess.start("--repl-diskless-sync-delay", "0"); RedisServerProcess replica = RedisServerProcess.start()) {
            expected = bigWriteTaken(master.port(), replica);
        }
        try (SpinelServer master = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("repl-diskless-sync-delay", "0"));
             RedisServerProcess replica = RedisServerProcess.start()) {
            assertEquals(expected, bigWriteTaken(master.port(), replica));
        }
    }

    private static void signal(String sig, RedisServerProcess p) throws Exception {
        new ProcessBuilder("kill", "-" + sig, Long.toString(p.pid())).inheritIO().start().waitFor();
    }
}
