package dev.spinel.server.replication;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static dev.spinel.server.replication.ReplicationTest.awaitInSync;
import static dev.spinel.server.replication.ReplicationTest.info;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * replica-announce-ip / replica-announce-port (sent with REPLCONF, shown by the master's INFO and ROLE), and
 * the fields Sentinel reads from a replica (slave_priority, replica_announced), with redis-server 7.0 on the
 * other end and side by side with a redis-server replica configured the same way.
 */
class ReplicationAnnounceTest {
    private static String infoText(RawClient c) throws Exception {
        return ReplicationTest.Resp.parse(c.call("INFO", "replication")).getFirst();
    }

    private static void awaitLine(RawClient master, String fragment) throws Exception {
        long deadline = System.nanoTime() + 20_000_000_000L;
        String text = "";
        while (System.nanoTime() < deadline) {
            text = infoText(master);
            if (text.contains(fragment)) {
                return;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("no '" + fragment + "' in the master's INFO:\n" + text);
    }

    @Test
    void aSpinelReplicaAnnouncesItsAddressToARedisMaster() throws Exception {
        try (RedisServerProcess master = RedisServerProcess.start("--repl-diskless-sync-delay", "0");
             RawClient m = new RawClient(master.port());
             SpinelServer replica = SpinelServer.start(ServerConfig.defaults().with("port", "0")
                     .with("replica-announce-ip", "10.9.9.2").with("replica-announce-port", "7002")
                     .with("replicaof", "127.0.0.1 " + master.port()));
             RawClient s = new RawClient(replica.port())) {
            awaitInSync(m, s);
            awaitLine(m, ":ip=10.9.9.2,port=7002,state=online");
            List<String> role = ReplicationTest.Resp.parse(m.call("ROLE"));
            assertEquals(List.of("master"), role.subList(0, 1));
            assertEquals(List.of("10.9.9.2", "7002"), role.subList(2, 4), role.toString());

            // changed at run time, the next handshake announces the new address
            s.callString("CONFIG", "SET", "replica-announce-ip", "10.9.9.5");
            s.callString("CONFIG", "SET", "slave-announce-port", "7005");
            m.callString("CLIENT", "KILL", "TYPE", "replica");
            awaitLine(m, ":ip=10.9.9.5,port=7005,state=online");
        }
    }

    /**
     * bind-source-addr: the replica connects to its master from that address, as Redis's connectWithMaster
     * does (Redis's networking unit: "CONFIG SET bind-source-addr"), set at run time before REPLICAOF.
     */
    @Test
    void aSpinelReplicaConnectsFromBindSourceAddr() throws Exception {
        try (RedisServerProcess master = RedisServerProcess.start("--repl-diskless-sync-delay", "0", "--protected-mode", "no");
             RawClient m = new RawClient(master.port());
             SpinelServer replica = SpinelServer.start(ServerConfig.defaults().with("port", "0"));
             RawClient s = new RawClient(replica.port())) {
            assertEquals("+OK\r\n", s.callString("CONFIG", "SET", "bind-source-addr", "127.0.0.2"));
            s.callString("REPLICAOF", "127.0.0.1", Integer.toString(master.port()));
            awaitInSync(m, s);
            awaitLine(m, "slave0:ip=127.0.0.2,");
        }
    }

    @Test
    void aSpinelMasterShowsWhatARedisReplicaAnnounces() throws Exception {
        try (SpinelServer master = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("repl-diskless-sync-delay", "0"));
             RawClient m = new RawClient(master.port());
             RedisServerProcess replica = RedisServerProcess.start("--replicaof", "127.0.0.1", Integer.toString(master.port()),
                     "--replica-announce-ip", "10.9.9.3", "--replica-announce-port", "7003");
             RawClient r = new RawClient(replica.port())) {
            awaitInSync(m, r);
            awaitLine(m, "slave0:ip=10.9.9.3,port=7003,state=online");
            List<String> role = ReplicationTest.Resp.parse(m.call("ROLE"));
            assertEquals(List.of("10.9.9.3", "7003"), role.subList(2, 4), role.toString());
        }
    }

    @Test
    void sentinelsFieldsAndTheDirectivesAsRedis() throws Exception {
        int closed = RedisServerProcess.freePort();
        try (RedisServerProcess redis = RedisServerProcess.start("--replicaof", "127.0.0.1", Integer.toString(closed),
                "--replica-priority", "42", "--replica-announced", "no", "--replica-announce-ip", "10.0.0.1",
                "--replica-announce-port", "6000");
             SpinelServer spinel = SpinelServer.start(ServerConfig.defaults().with("port", "0")
                     .with("replicaof", "127.0.0.1 " + closed).with("replica-priority", "42").with("replica-announced", "no")
                     .with("replica-announce-ip", "10.0.0.1").with("replica-announce-port", "6000"));
             RawClient r = new RawClient(redis.port());
             RawClient s = new RawClient(spinel.port())) {
            Map<String, String> ri = info(r);
            Map<String, String> si = info(s);
            for (String f : List.of("slave_priority", "replica_announced", "slave_read_only")) {
                assertEquals(ri.get(f), si.get(f), f);
            }
            assertEquals("0", si.get("replica_announced"));
            for (String p : List.of("replica-announce-ip", "slave-announce-ip", "replica-announce-port",
                    "slave-announce-port", "replica-announced", "replica-priority")) {
                assertEquals(r.callString("CONFIG", "GET", p), s.callString("CONFIG", "GET", p), p);
            }
            for (RawClient c : List.of(r, s)) {
                c.callString("CONFIG", "SET", "replica-announced", "yes");
            }
            assertEquals(info(r).get("replica_announced"), info(s).get("replica_announced"));
            assertEquals(r.callString("CONFIG", "SET", "replica-announce-port", "70000"),
                    s.callString("CONFIG", "SET", "replica-announce-port", "70000"));
        }
    }

    @Test
    void replconfIpAddressRefusedAsRedisWhenTooLong() throws Exception {
        try (RedisServerProcess redis = RedisServerProcess.start();
             SpinelServer spinel = SpinelServer.start(ServerConfig.defaults().with("port", "0"));
             RawClient r = new RawClient(redis.port());
             RawClient s = new RawClient(spinel.port())) {
            for (String ip : List.of("1.2.3.4", "x".repeat(255), "x".repeat(256), "x".repeat(300))) {
                String want = r.callString("REPLCONF", "ip-address", ip);
                assertEquals(want, s.callString("REPLCONF", "ip-address", ip), ip.length() + " bytes");
            }
            assertTrue(r.callString("REPLCONF", "ip-address", "x".repeat(300)).startsWith("-ERR REPLCONF ip-address"));
        }
    }
}
