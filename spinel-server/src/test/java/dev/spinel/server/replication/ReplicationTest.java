package dev.spinel.server.replication;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Replication with Redis's own protocol, against the real redis-server 7.0 on both ends: a redis-server
 * replica of a Spinel master, a Spinel replica of a redis-server master, and Spinel to Spinel. Each
 * loads data before the link (full resync with an RDB), writes every kind of command after it (the
 * stream, with expiries, MULTI, SELECT), waits until the replica's offset is the master's, and compares
 * the two datasets key by key (type, value, absolute expiry). A dropped link is resumed with a partial
 * resync ({@code sync_partial_ok}), WAIT counts the replicas that acknowledged, and a replica refuses
 * client writes with Redis's READONLY error.
 */
class ReplicationTest {
    @Test
    void redisServerReplicatesSpinel() throws Exception {
        try (SpinelServer master = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("repl-diskless-sync-delay", "0"));
             RawClient m = new RawClient(master.port())) {
            Workload.run(m, new Random(1), 300); // before the replica: the RDB of the full resync
            try (RedisServerProcess replica = RedisServerProcess.start("--replicaof", "127.0.0.1", Integer.toString(master.port()));
                 RawClient r = new RawClient(replica.port())) {
                Workload.run(m, new Random(2), 1500); // the stream
                awaitInSync(m, r);
                assertEquals(Dataset.of(m), Dataset.of(r));
                Map<String, String> info = info(m);
                assertEquals("1", info.get("connected_slaves"));
                assertTrue(info.get("slave0").contains("state=online"), info.get("slave0"));
                assertEquals("1", info.get("repl_backlog_active"));
                assertEquals(":1\r\n", m.callString("WAIT", "1", "5000"));
                assertEquals("-READONLY You can't write against a read only replica.\r\n", r.callString("SET", "x", "1"));

                // a key that expires on the master is deleted on the replica by the master's DEL (Redis
                // replicas never expire keys themselves; DBSIZE counts a logically expired key still held)
                m.callString("SELECT", "2");
                m.callString("SET", "gone", "v", "PX", "1500"); // long enough to see it on a loaded machine
                awaitInSync(m, r);
                r.callString("SELECT", "2");
                assertEquals(":1\r\n", r.callString("DBSIZE"));
                Thread.sleep(1600);
                assertEquals("$-1\r\n", m.callString("GET", "gone"));
                m.callString("SELECT", "0");
                awaitInSync(m, r);
                assertEquals(":0\r\n", r.callString("DBSIZE"));
                r.callString("SELECT", "0");
                assertEquals(master.port(), Integer.parseInt(info(r).get("master_port")));

                // a dropped link continues from the backlog
                long fullBefore = Long.parseLong(info(m).get("sync_full"));
                r.callString("CLIENT", "KILL", "TYPE", "master");
                Workload.run(m, new Random(3), 200);
                awaitInSync(m, r);
                assertEquals(Dataset.of(m), Dataset.of(r));
                assertEquals("1", info(m).get("sync_partial_ok"));
                assertEquals(fullBefore, Long.parseLong(info(m).get("sync_full")));
            }
        }
    }

    @Test
    void spinelReplicatesRedisServer() throws Exception {
        try (RedisServerProcess master = RedisServerProcess.start("--repl-diskless-sync-delay", "0");
             RawClient m = new RawClient(master.port())) {
            Workload.run(m, new Random(4), 300);
            try (SpinelServer replica = SpinelServer.start(ServerConfig.defaults().with("port", "0")
                    .with("replicaof", "127.0.0.1 " + master.port()));
                 RawClient r = new RawClient(replica.port())) {
                Workload.run(m, new Random(5), 1500);
                awaitInSync(m, r);
                assertEquals(Dataset.of(m), Dataset.of(r));
                Map<String, String> info = info(r);
                assertEquals("slave", info.get("role"));
                assertEquals("up", info.get("master_link_status"));
                assertEquals(info(m).get("master_replid"), info.get("master_replid"));
                assertEquals("-READONLY You can't write against a read only replica.\r\n", r.callString("SET", "x", "1"));
                assertEquals(":1\r\n", m.callString("WAIT", "1", "5000"));

                m.callString("CLIENT", "KILL", "TYPE", "replica");
                Workload.run(m, new Random(6), 200);
                awaitInSync(m, r);
                assertEquals(Dataset.of(m), Dataset.of(r));
                assertEquals("1", info(m).get("sync_partial_ok"));
                assertEquals("1", info(m).get("sync_full"));

                // the link is the replica's flags=M client: CLIENT KILL TYPE master drops it, it resumes with PSYNC
                String masters = r.callString("CLIENT", "LIST", "TYPE", "master");
                assertTrue(masters.contains(" addr=127.0.0.1:" + master.port() + " ") && masters.contains(" flags=M "), masters);
                assertEquals(":1\r\n", r.callString("CLIENT", "KILL", "TYPE", "master"));
                m.callString("SET", "after-kill", "1");
                awaitInSync(m, r);
                assertEquals("$1\r\n1\r\n", r.callString("GET", "after-kill"));
                assertEquals("2", info(m).get("sync_partial_ok"));
                assertEquals("1", info(m).get("sync_full"));

                // CLIENT PAUSE WRITE on the replica holds the stream back; nothing is lost
                assertEquals("+OK\r\n", r.callString("CLIENT", "PAUSE", "400", "WRITE"));
                m.callString("SET", "during-pause", "1");
                Thread.sleep(150);
                assertEquals("$-1\r\n", r.callString("GET", "during-pause"));
                awaitInSync(m, r);
                assertEquals("$1\r\n1\r\n", r.callString("GET", "during-pause"));

                // a key past its expiry on the replica's clock is still there for the master's commands (the
                // stream held back by a pause arrives after the expiry; the master ran them before it)
                assertEquals("+OK\r\n", r.callString("CLIENT", "PAUSE", "500", "WRITE"));
                m.callString("SET", "exp", "1", "PX", "200");
                m.callString("INCR", "exp");
                m.callString("PERSIST", "exp");
                awaitInSync(m, r);
                assertEquals("$1\r\n2\r\n", m.callString("GET", "exp"));
                assertEquals("$1\r\n2\r\n", r.callString("GET", "exp"));
                assertEquals(":-1\r\n", r.callString("PTTL", "exp"));

                assertEquals("+OK\r\n", r.callString("REPLICAOF", "NO", "ONE"));
                assertEquals("+OK\r\n", r.callString("SET", "x", "1"));
                assertEquals("master", info(r).get("role"));
            }
        }
    }

    @Test
    void spinelReplicatesSpinel() throws Exception {
        try (SpinelServer master = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("repl-diskless-sync-delay", "0"));
             SpinelServer replica = SpinelServer.start(ServerConfig.defaults().with("port", "0"));
             RawClient m = new RawClient(master.port());
             RawClient r = new RawClient(replica.port())) {
            Workload.run(m, new Random(7), 300);
            assertEquals("+OK\r\n", r.callString("REPLICAOF", "127.0.0.1", Integer.toString(master.port())));
            Workload.run(m, new Random(8), 1500);
            awaitInSync(m, r);
            assertEquals(Dataset.of(m), Dataset.of(r));
            assertEquals(":1\r\n", m.callString("WAIT", "1", "5000"));
            assertTrue(info(m).get("slave0").contains("port=" + replica.port() + ","), info(m).get("slave0"));
            assertEquals("-READONLY You can't write against a read only replica.\r\n", r.callString("SET", "x", "1"));
            String script = "return redis.call('set','x','1')";
            String sha = Resp.parse(r.call("SCRIPT", "LOAD", script)).getFirst();
            assertEquals("-READONLY You can't write against a read only replica. script: " + sha + ", on @user_script:1.\r\n",
                    r.callString("EVAL", script, "0"));
            String role = m.callString("ROLE");
            assertTrue(role.startsWith("*3\r\n$6\r\nmaster\r\n:"), role);

            // the replica's connection is flagged S; killing it by TYPE replica, the replica resumes with PSYNC
            String list = m.callString("CLIENT", "LIST", "TYPE", "replica");
            assertTrue(list.contains(" flags=S "), list);
            assertEquals(":1\r\n", m.callString("CLIENT", "KILL", "TYPE", "replica"));
            Workload.run(m, new Random(9), 200);
            awaitInSync(m, r);
            assertEquals(Dataset.of(m), Dataset.of(r));
            assertEquals("1", info(m).get("sync_partial_ok"));
            assertEquals("1", info(m).get("sync_full"));
        }
    }

    @Test
    void masterauthIsSentBeforeTheHandshake() throws Exception {
        try (RedisServerProcess master = RedisServerProcess.start("--requirepass", "s3cret", "--repl-diskless-sync-delay", "0");
             RawClient m = new RawClient(master.port())) {
            m.callString("AUTH", "s3cret");
            m.callString("SET", "k", "v");
            try (SpinelServer replica = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("masterauth", "s3cret"));
                 RawClient r = new RawClient(replica.port())) {
                // the master's stream is applied whatever the ACL rules of the replica's users (Redis's master client)
                assertEquals("+OK\r\n", r.callString("ACL", "SETUSER", "default", "-@write"));
                assertEquals("+OK\r\n", r.callString("REPLICAOF", "127.0.0.1", Integer.toString(master.port())));
                assertEquals("+OK Already connected to specified master\r\n", r.callString("REPLICAOF", "127.0.0.1", Integer.toString(master.port())));
                awaitInSync(m, r);
                assertEquals("$1\r\nv\r\n", r.callString("GET", "k"));
                m.callString("SET", "k2", "v2");
                awaitInSync(m, r);
                assertEquals("$2\r\nv2\r\n", r.callString("GET", "k2"));
                String role = r.callString("ROLE");
                assertTrue(role.startsWith("*5\r\n$5\r\nslave\r\n$9\r\n127.0.0.1\r\n:" + master.port() + "\r\n$9\r\nconnected\r\n:"), role);
            }
        }
    }

    @Test
    void aReplicaWithAppendonlyLogsTheLoadedDatasetAndTheStream() throws Exception {
        Path dir = Files.createTempDirectory("spinel-replica-aof");
        Map<String, String> expected;
        try (RedisServerProcess master = RedisServerProcess.start("--repl-diskless-sync-delay", "0");
             RawClient m = new RawClient(master.port())) {
            Workload.run(m, new Random(10), 300);
            try (SpinelServer replica = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", dir.toString())
                    .with("appendonly", "yes").with("replicaof", "127.0.0.1 " + master.port()));
                 RawClient r = new RawClient(replica.port())) {
                awaitInSync(m, r);
                Workload.run(m, new Random(11), 300);
                awaitInSync(m, r);
                long deadline = System.nanoTime() + 20_000_000_000L;
                while (!r.callString("INFO", "persistence").contains("aof_rewrite_in_progress:0\r\n")) {
                    assertTrue(System.nanoTime() < deadline, "AOF rewrite never ended");
                    Thread.sleep(20);
                }
                expected = Dataset.of(m);
                assertEquals(expected, Dataset.of(r));
            }
        }
        // restarted alone from its log: the master's dataset (the RDB's keys and the stream's writes)
        try (SpinelServer restarted = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", dir.toString())
                .with("appendonly", "yes"));
             RawClient r = new RawClient(restarted.port())) {
            assertEquals(expected, Dataset.of(r));
        }
    }

    /** Waits until the replica's link is up and its offset is the master's (20 s at most). */
    static void awaitInSync(RawClient m, RawClient r) throws Exception {
        long deadline = System.nanoTime() + 20_000_000_000L;
        Map<String, String> ri = Map.of();
        Map<String, String> mi = Map.of();
        while (System.nanoTime() < deadline) {
            mi = info(m);
            ri = info(r);
            if ("up".equals(ri.get("master_link_status")) && mi.get("master_repl_offset").equals(ri.get("slave_repl_offset"))) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("replica not in sync: master " + mi.get("master_repl_offset") + ", replica " + ri);
    }

    static Map<String, String> info(RawClient c) throws IOException {
        String body = Resp.parse(c.call("INFO", "replication")).getFirst() + Resp.parse(c.call("INFO", "stats")).getFirst();
        Map<String, String> m = new TreeMap<>();
        for (String line : body.split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0) {
                m.put(line.substring(0, colon), line.substring(colon + 1));
            }
        }
        return m;
    }

    /** A flat RESP reply (bulk, integer, array of bulks/integers) as strings. */
    static final class Resp {
        static List<String> parse(byte[] reply) {
            List<String> out = new ArrayList<>();
            int[] pos = {0};
            value(reply, pos, out);
            return out;
        }

        private static String line(byte[] b, int[] pos) {
            int start = pos[0];
            while (b[pos[0]] != '\r') {
                pos[0]++;
            }
            String s = new String(b, start, pos[0] - start, StandardCharsets.UTF_8);
            pos[0] += 2;
            return s;
        }

        private static void value(byte[] b, int[] pos, List<String> out) {
            char t = (char) b[pos[0]++];
            String l = line(b, pos);
            switch (t) {
                case '$' -> {
                    int n = Integer.parseInt(l);
                    if (n < 0) {
                        out.add(null);
                    } else {
                        out.add(new String(b, pos[0], n, StandardCharsets.ISO_8859_1));
                        pos[0] += n + 2;
                    }
                }
                case '*' -> {
                    int n = Integer.parseInt(l);
                    for (int i = 0; i < n; i++) {
                        value(b, pos, out);
                    }
                }
                default -> out.add(t + l);
            }
        }
    }
}
