package dev.spinel.server.replication;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static dev.spinel.server.replication.ReplicationTest.awaitInSync;
import static dev.spinel.server.replication.ReplicationTest.info;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A real Redis Sentinel (redis-server --sentinel, 7.0) monitors a Spinel master with a Spinel replica,
 * finds the replica through INFO replication, and when the master dies promotes the replica (its MULTI,
 * SLAVEOF NO ONE, CONFIG REWRITE, CLIENT KILL, EXEC) within the test's bound, the data written before
 * (acknowledged by WAIT) still there.
 */
class SentinelTest {
    @Test
    void sentinelPromotesASpinelReplicaWhenTheSpinelMasterDies() throws Exception {
        Path dir = Files.createTempDirectory("spinel-sentinel");
        int sentinelPort = RedisServerProcess.freePort();
        SpinelServer master = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("repl-diskless-sync-delay", "0"));
        Process sentinel = null;
        try (SpinelServer replica = SpinelServer.start(ServerConfig.defaults().with("port", "0")
                .with("replicaof", "127.0.0.1 " + master.port()));
             RawClient m = new RawClient(master.port());
             RawClient r = new RawClient(replica.port())) {
            m.callString("SET", "acked", "1");
            awaitInSync(m, r);
            assertEquals(":1\r\n", m.callString("WAIT", "1", "2000"));
            Path conf = dir.resolve("sentinel.conf");
            Files.writeString(conf, String.join("\n", List.of(
                    "port " + sentinelPort, "bind 127.0.0.1", "dir " + dir,
                    "sentinel monitor mymaster 127.0.0.1 " + master.port() + " 1",
                    "sentinel down-after-milliseconds mymaster 1000",
                    "sentinel failover-timeout mymaster 10000", "")));
            sentinel = new ProcessBuilder(RedisServerProcess.executable(), conf.toString(), "--sentinel")
                    .redirectErrorStream(true).redirectOutput(dir.resolve("sentinel.log").toFile()).start();
            awaitPort(sentinelPort, sentinel, dir);
            try (RawClient s = new RawClient(sentinelPort)) {
                long deadline = System.nanoTime() + 30_000_000_000L;
                while (!s.callString("SENTINEL", "REPLICAS", "mymaster").contains(Integer.toString(replica.port()))) {
                    assertTrue(System.nanoTime() < deadline, "Sentinel never saw the replica: " + Files.readString(dir.resolve("sentinel.log")));
                    Thread.sleep(100);
                }
                master.close();
                long killed = System.nanoTime();
                deadline = killed + 30_000_000_000L;
                // the promotion's CLIENT KILL TYPE normal drops this test's clients of the replica: a new one per look
                while (!s.callString("SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mymaster").contains(Integer.toString(replica.port()))
                        || !"master".equals(roleOf(replica.port()))) {
                    assertTrue(System.nanoTime() < deadline, "no promotion: " + Files.readString(dir.resolve("sentinel.log")));
                    Thread.sleep(100);
                }
                long seconds = TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - killed);
                assertTrue(seconds < 20, "promotion took " + seconds + " s");
                try (RawClient promoted = new RawClient(replica.port())) {
                    assertEquals("$1\r\n1\r\n", promoted.callString("GET", "acked"));
                    assertEquals("+OK\r\n", promoted.callString("SET", "after", "1"));
                }
            }
        } finally {
            master.close();
            if (sentinel != null) {
                sentinel.destroy();
                sentinel.waitFor(5, TimeUnit.SECONDS);
            }
        }
    }

    private static String roleOf(int port) throws Exception {
        try (RawClient c = new RawClient(port)) {
            return info(c).get("role");
        }
    }

    private static void awaitPort(int port, Process p, Path dir) throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (true) {
            try (Socket s = new Socket("127.0.0.1", port)) {
                return;
            } catch (IOException notYet) {
                assertTrue(p.isAlive() && System.nanoTime() < deadline, "sentinel did not start: " + Files.readString(dir.resolve("sentinel.log")));
                Thread.sleep(50);
            }
        }
    }
}
