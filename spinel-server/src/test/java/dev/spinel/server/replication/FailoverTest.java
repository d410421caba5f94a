package dev.spinel.server.replication;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.Random;

import static dev.spinel.server.replication.ReplicationTest.awaitInSync;
import static dev.spinel.server.replication.ReplicationTest.info;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * FAILOVER as Redis 7.0: the master waits for its target to acknowledge everything, becomes its replica
 * with PSYNC ... FAILOVER, and the target takes over with +CONTINUE (no full resync anywhere), between
 * Spinel and redis-server in both directions; argument errors compared byte for byte; a timeout aborts.
 */
class FailoverTest {
    private static ServerConfig spinel() {
        return ServerConfig.defaults().with("port", "0").with("repl-diskless-sync-delay", "0");
    }

    private static void awaitRole(RawClient c, String role) throws Exception {
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (!role.equals(info(c).get("role")) || !"no-failover".equals(info(c).get("master_failover_state"))
                || (role.equals("slave") && !"up".equals(info(c).get("master_link_status")))) {
            assertTrue(System.nanoTime() < deadline, "never became " + role + ": " + info(c));
            Thread.sleep(50);
        }
    }

    @Test
    void spinelHandsOverToASpinelReplicaThenToARedisServerReplica() throws Exception {
        try (SpinelServer master = SpinelServer.start(spinel());
             SpinelServer replica = SpinelServer.start(spinel());
             RawClient m = new RawClient(master.port());
             RawClient r = new RawClient(replica.port())) {
            r.callString("REPLICAOF", "127.0.0.1", Integer.toString(master.port()));
            Workload.run(m, new Random(41), 300);
            awaitInSync(m, r);
            assertEquals("+OK\r\n", m.callString("FAILOVER", "TO", "127.0.0.1", Integer.toString(replica.port())));
            awaitRole(r, "master");
            awaitRole(m, "slave");
            assertEquals(Integer.toString(replica.port()), info(m).get("master_port"));
            Map<String, String> ri = info(r);
            assertEquals("1", ri.get("sync_partial_ok")); // the old master continued its own history
            assertEquals("0", ri.get("sync_full"));
            assertEquals("-READONLY You can't write against a read only replica.\r\n", m.callString("SET", "x", "1"));
            Workload.run(r, new Random(42), 300);
            awaitInSync(r, m);
            assertEquals(Dataset.of(r), Dataset.of(m));

            // and on to a redis-server replica of the new master, FAILOVER without a target
            try (RedisServerProcess redis = RedisServerProcess.start("--replicaof", "127.0.0.1", Integer.toString(replica.port()));
                 RawClient x = new RawClient(redis.port())) {
                awaitInSync(r, x);
                awaitInSync(r, m);
                // two replicas: the first to acknowledge everything is the target; make it the redis-server
                m.callString("REPLICAOF", "NO", "ONE");
                awaitRole(m, "master");
                assertEquals("+OK\r\n", r.callString("FAILOVER"));
                awaitRole(x, "master");
                awaitRole(r, "slave");
                assertEquals("1", info(x).get("sync_partial_ok"));
                assertEquals("0", info(x).get("sync_full"));
                x.callString("SET", "from-redis", "1");
                awaitInSync(x, r);
                assertEquals("$1\r\n1\r\n", r.callString("GET", "from-redis"));
            }
        }
    }

    @Test
    void redisServerHandsOverToASpinelReplica() throws Exception {
        try (RedisServerProcess master = RedisServerProcess.start("--repl-diskless-sync-delay", "0");
             RawClient m = new RawClient(master.port());
             SpinelServer replica = SpinelServer.start(spinel());
             RawClient r = new RawClient(replica.port())) {
            Workload.run(m, new Random(43), 300);
            r.callString("REPLICAOF", "127.0.0.1", Integer.toString(master.port()));
            awaitInSync(m, r);
            assertEquals("+OK\r\n", m.callString("FAILOVER"));
            awaitRole(r, "master");
            awaitRole(m, "slave");
            Map<String, String> ri = info(r);
            assertEquals("1", ri.get("sync_partial_ok"));
            assertEquals("0", ri.get("sync_full"));
            assertEquals(Integer.toString(replica.port()), info(m).get("master_port"));
            Workload.run(r, new Random(44), 300);
            awaitInSync(r, m);
            assertEquals(Dataset.of(r), Dataset.of(m));
        }
    }

    @Test
    void argumentErrorsAndATimeoutThatAborts() throws Exception {
        try (RedisServerProcess redis = RedisServerProcess.start();
             SpinelServer spinel = SpinelServer.start(spinel());
             RawClient x = new RawClient(redis.port());
             RawClient s = new RawClient(spinel.port())) {
            List<String[]> cmds = List.of(new String[] {"FAILOVER"}, new String[] {"FAILOVER", "ABORT"},
                    new String[] {"FAILOVER", "TO", "127.0.0.1", "1", "FORCE"}, new String[] {"FAILOVER", "TIMEOUT", "0"},
                    new String[] {"FAILOVER", "TIMEOUT", "-1"}, new String[] {"FAILOVER", "TIMEOUT", "abc"},
                    new String[] {"FAILOVER", "TO", "127.0.0.1", "abc"}, new String[] {"FAILOVER", "TIMEOUT", "10", "TIMEOUT", "20"},
                    new String[] {"FAILOVER", "ABORT", "TIMEOUT", "10"}, new String[] {"FAILOVER", "FORCE", "FORCE"},
                    new String[] {"FAILOVER", "TO", "127.0.0.1"});
            for (String[] c : cmds) {
                assertEquals(x.callString(c), s.callString(c), String.join(" ", c));
            }
            try (SpinelServer replica = SpinelServer.start(spinel());
                 RawClient r = new RawClient(replica.port())) {
                r.callString("REPLICAOF", "127.0.0.1", Integer.toString(spinel.port()));
                awaitInSync(s, r);
                assertEquals("-ERR FAILOVER target HOST and PORT is not a replica.\r\n", s.callString("FAILOVER", "TO", "127.0.0.1", "1"));
                assertEquals("-ERR FAILOVER with force option requires both a timeout and target HOST and IP.\r\n",
                        s.callString("FAILOVER", "TIMEOUT", "100", "FORCE"));
                assertEquals("-ERR FAILOVER is not valid when server is a replica.\r\n", r.callString("FAILOVER"));
                // the replica holds the stream back: it never catches up, the failover times out
                r.callString("CLIENT", "PAUSE", "3000", "WRITE");
                s.callString("SET", "unacked", "1");
                assertEquals("+OK\r\n", s.callString("FAILOVER", "TO", "127.0.0.1", Integer.toString(replica.port()), "TIMEOUT", "500"));
                assertEquals("waiting-for-sync", info(s).get("master_failover_state"));
                assertEquals("-ERR FAILOVER already in progress.\r\n", s.callString("FAILOVER"));
                awaitRole(s, "master");
                assertEquals("+OK\r\n", s.callString("SET", "after", "1")); // writes resumed
                // ABORT while waiting
                r.callString("CLIENT", "PAUSE", "3000", "WRITE");
                s.callString("SET", "unacked2", "1");
                assertEquals("+OK\r\n", s.callString("FAILOVER"));
                assertEquals("+OK\r\n", s.callString("FAILOVER", "ABORT"));
                assertEquals("no-failover", info(s).get("master_failover_state"));
                assertEquals("master", info(s).get("role"));
            }
        }
    }
}
