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
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What replication refuses or hides, compared byte for byte with redis-server 7.0 in the same role:
 * NOREPLICAS (min-replicas-to-write), MASTERDOWN (replica-serve-stale-data no), READONLY and a writable
 * replica (replica-read-only no), and a replica's expired keys (reported missing, kept until the master's DEL).
 */
class ReplicationRulesTest {
    private static void same(RawClient redis, RawClient spinel, String... cmd) throws Exception {
        assertEquals(redis.callString(cmd), spinel.callString(cmd), String.join(" ", cmd));
    }

    private static final List<String[]> WRITES = List.of(
            new String[] {"SET", "x", "1"},
            new String[] {"GET", "x"},
            new String[] {"MULTI"}, new String[] {"INCR", "x"}, new String[] {"EXEC"},
            new String[] {"MULTI"}, new String[] {"GET", "x"}, new String[] {"EXEC"},
            new String[] {"EVAL", "return redis.call('set','x','1')", "0"},
            new String[] {"EVAL", "return redis.call('get','x')", "0"});

    @Test
    void minReplicasToWrite() throws Exception {
        try (RedisServerProcess redis = RedisServerProcess.start();
             SpinelServer master = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("repl-diskless-sync-delay", "0"));
             RawClient r = new RawClient(redis.port());
             RawClient m = new RawClient(master.port())) {
            for (RawClient c : List.of(r, m)) {
                c.callString("CONFIG", "SET", "min-replicas-to-write", "1");
            }
            for (String[] cmd : WRITES) {
                same(r, m, cmd);
            }
            assertEquals("0", info(m).get("min_slaves_good_slaves"));
            assertEquals(info(r).get("min_slaves_good_slaves"), info(m).get("min_slaves_good_slaves"));
            same(r, m, "CONFIG", "GET", "min-slaves-to-write");

            try (SpinelServer replica = SpinelServer.start(ServerConfig.defaults().with("port", "0")
                    .with("replicaof", "127.0.0.1 " + master.port()));
                 RawClient rc = new RawClient(replica.port())) {
                awaitInSync(m, rc);
                assertEquals("+OK\r\n", m.callString("SET", "x", "2"));
                assertEquals("1", info(m).get("min_slaves_good_slaves"));
                m.callString("CONFIG", "SET", "min-replicas-to-write", "2");
                assertEquals("-NOREPLICAS Not enough good replicas to write.\r\n", m.callString("SET", "x", "3"));
                // a lag bound of 0 switches the check off, as in Redis
                m.callString("CONFIG", "SET", "min-replicas-max-lag", "0");
                assertEquals("+OK\r\n", m.callString("SET", "x", "3"));
            }
        }
    }

    @Test
    void staleReplicaAndWritableReplica() throws Exception {
        int closed = RedisServerProcess.freePort();
        try (RedisServerProcess redis = RedisServerProcess.start("--replicaof", "127.0.0.1", Integer.toString(closed),
                "--replica-serve-stale-data", "no");
             SpinelServer spinel = SpinelServer.start(ServerConfig.defaults().with("port", "0")
                     .with("replicaof", "127.0.0.1 " + closed).with("replica-serve-stale-data", "no"));
             RawClient r = new RawClient(redis.port());
             RawClient s = new RawClient(spinel.port())) {
            String[][] cmds = {{"GET", "x"}, {"SET", "x", "1"}, {"PING"}, {"DBSIZE"}, {"ECHO", "a"}, {"EXISTS", "x"},
                    {"CONFIG", "GET", "replica-serve-stale-data"}, {"MULTI"}, {"GET", "x"}, {"EXEC"}};
            for (String[] cmd : cmds) {
                same(r, s, cmd);
            }
            for (RawClient c : List.of(r, s)) {
                c.callString("CONFIG", "SET", "replica-read-only", "no");
            }
            same(r, s, "SET", "x", "1"); // now MASTERDOWN, no longer READONLY
            for (RawClient c : List.of(r, s)) {
                c.callString("CONFIG", "SET", "replica-serve-stale-data", "yes");
            }
            same(r, s, "GET", "x");
            same(r, s, "SET", "x", "1"); // a writable replica takes client writes
            same(r, s, "GET", "x");
            for (RawClient c : List.of(r, s)) {
                c.callString("CONFIG", "SET", "replica-read-only", "yes");
            }
            same(r, s, "SET", "x", "2");
            same(r, s, "EVAL", "return redis.call('set','x','1')", "0");
        }
    }

    @Test
    void aReplicaHidesExpiredKeysUntilItsMastersDel() throws Exception {
        try (RedisServerProcess master = RedisServerProcess.start("--repl-diskless-sync-delay", "0", "--enable-debug-command", "yes");
             RawClient m = new RawClient(master.port())) {
            assertEquals("+OK\r\n", m.callString("DEBUG", "SET-ACTIVE-EXPIRE", "0")); // only reads on the master expire keys
            m.callString("SET", "kept", "v");
            m.callString("SET", "loaded", "v", "PX", "300"); // in the RDB, past its time when read
            try (RedisServerProcess redisReplica = RedisServerProcess.start("--replicaof", "127.0.0.1", Integer.toString(master.port()));
                 SpinelServer spinelReplica = SpinelServer.start(ServerConfig.defaults().with("port", "0")
                         .with("replicaof", "127.0.0.1 " + master.port()));
                 RawClient r = new RawClient(redisReplica.port());
                 RawClient s = new RawClient(spinelReplica.port())) {
                awaitInSync(m, r);
                awaitInSync(m, s);
                m.callString("SET", "k", "v", "PX", "100");
                awaitInSync(m, r);
                awaitInSync(m, s);
                // a stream held back by a pause arrives after its absolute times: the replicas keep the keys
                for (RawClient c : List.of(r, s)) {
                    c.callString("CLIENT", "PAUSE", "500", "WRITE");
                }
                long now = System.currentTimeMillis();
                m.callString("SET", "late", "v");
                m.callString("PEXPIREAT", "late", Long.toString(now + 100));
                m.callString("SET", "getex", "v");
                m.callString("GETEX", "getex", "PXAT", Long.toString(now + 100));
                m.callString("SET", "setpx", "v", "PXAT", Long.toString(now + 100));
                Thread.sleep(300);
                awaitInSync(m, r);
                awaitInSync(m, s);
                for (String k : List.of("k", "late", "getex", "setpx", "loaded", "kept")) {
                    same(r, s, "GET", k);
                    same(r, s, "EXISTS", k);
                    same(r, s, "TTL", k);
                    same(r, s, "TYPE", k);
                }
                same(r, s, "KEYS", "*");
                same(r, s, "DBSIZE");
                assertEquals(":6\r\n", s.callString("DBSIZE")); // hidden, not deleted
                same(r, s, "SCAN", "0");
                same(r, s, "DBSIZE");
                for (String k : List.of("k", "late", "getex", "setpx", "loaded")) {
                    m.callString("GET", k); // the master expires them and sends DELs
                }
                awaitInSync(m, r);
                awaitInSync(m, s);
                same(r, s, "DBSIZE");
                assertEquals(":1\r\n", s.callString("DBSIZE"));
                assertTrue(info(s).get("master_link_status").equals("up"));
            }
        }
    }

    @Test
    void scriptsWithFlagsAreWritesUnlessNoWrites() throws Exception {
        String lib = "#!lua name=test\n"
                + "redis.register_function{function_name='f_default_flags', callback=function(keys, args) return redis.call('get',keys[1]) end, flags={}}\n"
                + "redis.register_function{function_name='f_no_writes', callback=function(keys, args) return redis.call('get',keys[1]) end, flags={'no-writes'}}";
        String[][] cmds = {{"FCALL", "f_default_flags", "1", "foo"}, {"FCALL", "f_no_writes", "1", "foo"},
                {"FCALL_RO", "f_no_writes", "1", "foo"}, {"EVAL", "#!lua\nreturn redis.call('get','foo')", "0"},
                {"EVAL", "#!lua flags=no-writes\nreturn redis.call('get','foo')", "0"}, {"EVAL", "return redis.call('get','foo')", "0"}};
        int closed = RedisServerProcess.freePort();
        try (RedisServerProcess redis = RedisServerProcess.start();
             SpinelServer spinel = SpinelServer.start(ServerConfig.defaults().with("port", "0"));
             RawClient r = new RawClient(redis.port());
             RawClient s = new RawClient(spinel.port())) {
            for (RawClient c : List.of(r, s)) {
                c.callString("FUNCTION", "LOAD", lib);
                c.callString("SET", "foo", "12345");
                c.callString("CONFIG", "SET", "min-replicas-to-write", "1"); // NOREPLICAS for the writing ones
            }
            for (String[] cmd : cmds) {
                same(r, s, cmd);
            }
            for (RawClient c : List.of(r, s)) {
                c.callString("CONFIG", "SET", "min-replicas-to-write", "0");
                c.callString("REPLICAOF", "127.0.0.1", Integer.toString(closed)); // READONLY for the writing ones
            }
            for (String[] cmd : cmds) {
                same(r, s, cmd);
            }
        }
    }

    @Test
    void debugReplicateAndTheReplicasErrorsToItsMaster() throws Exception {
        try (SpinelServer master = SpinelServer.start(ServerConfig.defaults().with("port", "0")
                .with("repl-diskless-sync-delay", "0").with("enable-debug-command", "yes"));
             RawClient m = new RawClient(master.port());
             RedisServerProcess redisReplica = RedisServerProcess.start("--replicaof", "127.0.0.1", Integer.toString(master.port()));
             SpinelServer spinelReplica = SpinelServer.start(ServerConfig.defaults().with("port", "0")
                     .with("replicaof", "127.0.0.1 " + master.port()));
             RawClient r = new RawClient(redisReplica.port());
             RawClient s = new RawClient(spinelReplica.port())) {
            awaitInSync(m, r);
            awaitInSync(m, s);
            assertEquals("+OK\r\n", m.callString("DEBUG", "REPLICATE", "fake-command-1"));
            assertEquals("$-1\r\n", m.callString("GET", "fake-command-1")); // not run on the master itself
            m.callString("SET", "foo", "bar2");
            assertEquals(":2\r\n", m.callString("WAIT", "2", "5000"));
            for (RawClient c : List.of(r, s)) {
                assertEquals("1", info(c).get("unexpected_error_replies"));
                assertEquals("$4\r\nbar2\r\n", c.callString("GET", "foo"));
                c.callString("CONFIG", "SET", "replica-read-only", "no");
                c.callString("SET", "number2", "foo");
            }
            m.callString("INCRBY", "number2", "1");
            assertEquals(":2\r\n", m.callString("WAIT", "2", "5000"));
            for (RawClient c : List.of(r, s)) {
                assertEquals("2", info(c).get("unexpected_error_replies"));
                assertEquals("$3\r\nfoo\r\n", c.callString("GET", "number2"));
            }
        }
    }
}
