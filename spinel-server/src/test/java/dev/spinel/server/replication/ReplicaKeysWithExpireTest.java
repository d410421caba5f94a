package dev.spinel.server.replication;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.spinel.server.replication.ReplicationTest.awaitInSync;
import static dev.spinel.server.replication.ReplicationTest.info;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A writable replica ({@code replica-read-only no}) expires the keys its own clients gave a time to live (Redis
 * 7.0's slaveKeysWithExpire, INFO's {@code slave_expires_tracked_keys}), while the master's keys still wait for
 * the master's DEL: a Spinel replica and a redis-server replica of the same master, compared.
 */
class ReplicaKeysWithExpireTest {
    private static void same(RawClient redis, RawClient spinel, String... cmd) throws Exception {
        assertEquals(redis.callString(cmd), spinel.callString(cmd), String.join(" ", cmd));
    }

    private static void sameTracked(RawClient r, RawClient s, String expected) throws Exception {
        assertEquals(expected, info(r).get("slave_expires_tracked_keys"), "redis-server");
        assertEquals(expected, info(s).get("slave_expires_tracked_keys"), "spinel");
    }

    @Test
    void aWritableReplicaExpiresItsClientsKeysNotTheMasters() throws Exception {
        try (RedisServerProcess master = RedisServerProcess.start("--enable-debug-command", "yes", "--repl-diskless-sync-delay", "0");
             RawClient m = new RawClient(master.port())) {
            assertEquals("+OK\r\n", m.callString("DEBUG", "SET-ACTIVE-EXPIRE", "0")); // the master sends no DEL
            try (RedisServerProcess redisReplica = RedisServerProcess.start("--replicaof", "127.0.0.1",
                    Integer.toString(master.port()), "--replica-read-only", "no");
                 SpinelServer spinelReplica = SpinelServer.start(ServerConfig.defaults().with("port", "0")
                         .with("replicaof", "127.0.0.1 " + master.port()).with("replica-read-only", "no"));
                 RawClient r = new RawClient(redisReplica.port());
                 RawClient s = new RawClient(spinelReplica.port())) {
                awaitInSync(m, r);
                awaitInSync(m, s);
                m.callString("SET", "frommaster", "v", "PX", "300");
                awaitInSync(m, r);
                awaitInSync(m, s);
                sameTracked(r, s, "0"); // the master's keys are not tracked
                for (RawClient c : List.of(r, s)) {
                    c.callString("SET", "a", "1", "PX", "500");
                    c.callString("SET", "b", "2");
                    c.callString("PEXPIRE", "b", "600");
                    c.callString("SET", "kept", "3");
                    c.callString("SELECT", "5");
                    c.callString("SET", "a", "in5", "EX", "1");
                    c.callString("SELECT", "0");
                }
                sameTracked(r, s, "2"); // a (databases 0 and 5) and b
                same(r, s, "DBSIZE");
                Thread.sleep(1_800);
                // expired by the replicas themselves; the master's key stays (hidden) until its DEL
                same(r, s, "DBSIZE");
                assertEquals(":2\r\n", s.callString("DBSIZE"));
                same(r, s, "EXISTS", "frommaster");
                sameTracked(r, s, "0");
                for (RawClient c : List.of(r, s)) {
                    c.callString("SELECT", "5");
                }
                same(r, s, "DBSIZE");
                assertEquals(":0\r\n", s.callString("DBSIZE"));

                for (RawClient c : List.of(r, s)) {
                    c.callString("SET", "later", "v", "EX", "100");
                }
                sameTracked(r, s, "1");
                same(r, s, "FLUSHALL"); // forgets the tracked keys, as Redis's emptyData
                sameTracked(r, s, "0");

                for (RawClient c : List.of(r, s)) {
                    c.callString("CONFIG", "SET", "replica-read-only", "yes");
                }
                same(r, s, "SET", "ro", "v", "EX", "100");
                sameTracked(r, s, "0");
            }
        }
    }
}
