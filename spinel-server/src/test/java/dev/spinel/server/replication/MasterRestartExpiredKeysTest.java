package dev.spinel.server.replication;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.spinel.server.replication.ReplicationTest.awaitInSync;
import static dev.spinel.server.replication.ReplicationTest.info;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A master restarted from an RDB that holds keys already past their expiry (saved with them, as Redis's rdbSave
 * does) skips them, counts them ({@code rdb_last_load_keys_expired}) and puts their DELs into the backlog it
 * restores from the RDB's replication info, so its replica, which kept those keys, deletes them after the partial
 * resync (Redis 7.0's RDBFLAGS_FEED_REPL; psync2-master-restart.tcl). The restart of a redis-server master and of a
 * Spinel master, each with a redis-server replica, compared: the same offsets, counts and replica datasets.
 */
class MasterRestartExpiredKeysTest {
    private interface Master extends AutoCloseable {
        int port();

        @Override
        void close();
    }

    private static Master redis(int port, Path dir) {
        RedisServerProcess p = RedisServerProcess.startOn(port, "--dir", dir.toString(), "--repl-ping-replica-period", "3600",
                "--enable-debug-command", "yes", "--repl-diskless-sync-delay", "0");
        return new Master() {
            public int port() {
                return p.port();
            }

            public void close() {
                p.close();
            }
        };
    }

    private static Master spinel(int port, Path dir) {
        SpinelServer s = SpinelServer.start(ServerConfig.defaults().with("port", Integer.toString(port)).with("dir", dir.toString())
                .with("repl-ping-replica-period", "3600").with("enable-debug-command", "yes").with("repl-diskless-sync-delay", "0")
                .with("save", ""));
        return new Master() {
            public int port() {
                return s.port();
            }

            public void close() {
                s.close();
            }
        };
    }

    @FunctionalInterface
    private interface Starter {
        Master start(int port, Path dir);
    }

    /** What the restart looks like: offsets, counts, the replica's keys per database. */
    private static Map<String, String> restart(Starter starter) throws Exception {
        Path dir = Files.createTempDirectory("master-restart-expired");
        int port = RedisServerProcess.freePort();
        Map<String, String> seen = new LinkedHashMap<>();
        try (RedisServerProcess replica = RedisServerProcess.start();
             RawClient r = new RawClient(replica.port())) {
            long before;
            try (Master master = starter.start(port, dir);
                 RawClient m = new RawClient(master.port())) {
                r.callString("REPLICAOF", "127.0.0.1", Integer.toString(port));
                assertEquals("+OK\r\n", m.callString("DEBUG", "SET-ACTIVE-EXPIRE", "0"));
                m.callString("SET", "kept", "v");
                for (int i = 0; i < 10; i++) {
                    m.callString("SET", "e" + i, "v", "PX", "50");
                }
                m.callString("SELECT", "2");
                for (int i = 0; i < 5; i++) {
                    m.callString("SET", "f" + i, "v", "PX", "50");
                }
                Thread.sleep(200);
                awaitInSync(m, r);
                // the replica's ACK of everything, seen by the master: Redis's shutdown then sends no GETACK
                // (which would move the offset past the RDB's), as psync2-master-restart.tcl waits for it
                before = Long.parseLong(info(m).get("master_repl_offset"));
                long deadline = System.nanoTime() + 10_000_000_000L;
                while (!info(m).getOrDefault("slave0", "").contains(",offset=" + before + ",")) {
                    assertTrue(System.nanoTime() < deadline, "no ACK of " + before);
                    Thread.sleep(20);
                }
                assertEquals("+OK\r\n", m.callString("SAVE"));
            }
            try (Master master = starter.start(port, dir);
                 RawClient m = new RawClient(master.port())) {
                awaitInSync(m, r);
                Map<String, String> mi = info(m);
                seen.put("offset growth", Long.toString(Long.parseLong(mi.get("master_repl_offset")) - before));
                seen.put("sync_partial_ok", mi.get("sync_partial_ok"));
                seen.put("sync_full", mi.get("sync_full"));
                String persistence = new String(m.call("INFO", "persistence"));
                seen.put("rdb_last_load_keys_expired", persistence.replaceAll("(?s).*rdb_last_load_keys_expired:(\\d+).*", "$1"));
                for (String db : List.of("0", "2")) {
                    r.callString("SELECT", db);
                    seen.put("replica dbsize " + db, r.callString("DBSIZE"));
                }
            }
        }
        return seen;
    }

    @Test
    void aRestartedMasterSendsItsReplicasTheDelsOfTheKeysItsRdbHadExpired() throws Exception {
        Map<String, String> redis = restart(MasterRestartExpiredKeysTest::redis);
        assertEquals("15", redis.get("rdb_last_load_keys_expired"), redis.toString());
        assertEquals(":1\r\n", redis.get("replica dbsize 0"), redis.toString());
        assertEquals(redis, restart(MasterRestartExpiredKeysTest::spinel));
    }
}
