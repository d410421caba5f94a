package dev.spinel.server.replication;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static dev.spinel.server.testing.Await.waitFor;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A full resync's RDB is reported as Redis reports its BGSAVE child for replicas (replication.tcl "Kill rdb child
 * process if its dumping RDB is not useful"): INFO's {@code rdb_bgsave_in_progress:1} and the replica's
 * {@code wait_bgsave} state while it is made, BGSAVE and SAVE refused meanwhile, the RDB stopped once no replica
 * waits for it (unless save points are set and it goes to the file), and with diskless sync for the length of the
 * transfer. A redis-server master and a Spinel master go through the same steps (a redis-server replica each,
 * rdb-key-save-delay making the RDB slow); what each step shows is compared.
 */
class ReplicaRdbBgsaveTest {
    private static String persistence(RawClient c, String field) throws Exception {
        for (String line : c.callString("INFO", "persistence").split("\r\n")) {
            if (line.startsWith(field + ":")) {
                return line.substring(field.length() + 1);
            }
        }
        return null;
    }

    private static boolean replicaState(RawClient master, String state) throws Exception {
        return master.callString("INFO", "replication").contains(",state=" + state + ",");
    }

    private static List<String> steps(int masterPort, int replicaPort) throws Exception {
        List<String> seen = new ArrayList<>();
        try (RawClient m = new RawClient(masterPort); RawClient r = new RawClient(replicaPort)) {
            for (int i = 0; i < 10; i++) {
                m.callString("SET", "k" + i, "v" + i);
            }
            m.callString("CONFIG", "SET", "rdb-key-save-delay", "150000"); // 1.5 s for the whole RDB
            m.callString("CONFIG", "SET", "repl-diskless-sync", "no");
            m.callString("CONFIG", "SET", "save", "");
            r.callString("REPLICAOF", "127.0.0.1", Integer.toString(masterPort));
            waitFor(() -> "1".equals(persistence(m, "rdb_bgsave_in_progress")) && replicaState(m, "wait_bgsave"),
                    "the RDB for the replica in progress");
            seen.add("bgsave: " + m.callString("BGSAVE"));
            seen.add("bgsave schedule: " + m.callString("BGSAVE", "SCHEDULE"));
            seen.add("save: " + m.callString("SAVE"));
            r.callString("REPLICAOF", "NO", "ONE"); // no replica waits: the RDB is stopped
            waitFor(() -> "0".equals(persistence(m, "rdb_bgsave_in_progress")), "the useless RDB stopped");
            seen.add("status after stop: " + persistence(m, "rdb_last_bgsave_status"));

            m.callString("CONFIG", "SET", "save", "900 1"); // the file is wanted: it goes on without replicas
            r.callString("REPLICAOF", "127.0.0.1", Integer.toString(masterPort));
            waitFor(() -> "1".equals(persistence(m, "rdb_bgsave_in_progress")) && replicaState(m, "wait_bgsave"),
                    "the RDB for the replica in progress again");
            r.callString("REPLICAOF", "NO", "ONE");
            waitFor(() -> !m.callString("INFO", "replication").contains("slave0:"), "the replica gone");
            Thread.sleep(300); // a stop would show by now
            seen.add("kept with save points: " + persistence(m, "rdb_bgsave_in_progress"));
            waitFor(() -> "0".equals(persistence(m, "rdb_bgsave_in_progress")), "the save done");
            seen.add("status after the file: " + persistence(m, "rdb_last_bgsave_status")
                    + ", changes: " + persistence(m, "rdb_changes_since_last_save"));

            m.callString("CONFIG", "SET", "save", "");
            m.callString("CONFIG", "SET", "repl-diskless-sync", "yes");
            m.callString("CONFIG", "SET", "repl-diskless-sync-delay", "0");
            r.callString("REPLICAOF", "127.0.0.1", Integer.toString(masterPort));
            waitFor(() -> "1".equals(persistence(m, "rdb_bgsave_in_progress")) && replicaState(m, "wait_bgsave"),
                    "the diskless transfer in progress");
            seen.add("diskless bgsave: " + m.callString("BGSAVE"));
            m.callString("CONFIG", "SET", "rdb-key-save-delay", "0"); // Redis's child reads it at the start: Spinel too
            r.callString("REPLICAOF", "NO", "ONE");
            waitFor(() -> "0".equals(persistence(m, "rdb_bgsave_in_progress")), "the diskless transfer stopped");
        }
        return seen;
    }

    @Test
    void replicasRdbIsABgsaveAsRedisReportsIt() throws Exception {
        Path dir = Files.createTempDirectory("spinel-replica-rdb");
        try (RedisServerProcess redisMaster = RedisServerProcess.start();
             RedisServerProcess replica = RedisServerProcess.start();
             SpinelServer spinel = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", dir.toString()))) {
            List<String> expected = steps(redisMaster.port(), replica.port());
            List<String> got = steps(spinel.port(), replica.port());
            assertTrue(expected.getFirst().startsWith("bgsave: -ERR Background save already in progress"), expected.toString());
            assertEquals(expected, got);
            assertTrue(Files.exists(dir.resolve("dump.rdb")), "the disk-style RDB was saved as dbfilename");
        }
    }
}
