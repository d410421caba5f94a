package dev.spinel.server;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import dev.spinel.server.testing.SpinelProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a server started as {@code bin/spinel-server} starts it (the process's {@code main}) loads, with the
 * default configuration: no SLF4J (Netty's logging is set to the JDK's before Netty would probe SLF4J, which has
 * no binding here and printed three "SLF4J:" lines at every start) and none of Ratis's or the cluster's Raft
 * classes while cluster mode is off (docs/memory.md, "The JVM baseline").
 */
class StartupClassesTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(120)
    void theDefaultServerLoadsNeitherSlf4jNorRatis() throws Exception {
        int port = RedisServerProcess.freePort();
        Path classLog = dir.resolve("classes.log");
        Path log = dir.resolve("spinel.log");
        Process p = new ProcessBuilder(SpinelProcess.command(List.of("-Xlog:class+load=info:file=" + classLog),
                "--port", Integer.toString(port), "--dir", dir.toString(), "--grpc-port", "0", "--save", ""))
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (true) {
                try (Socket s = new Socket("127.0.0.1", port)) {
                    break;
                } catch (IOException notYet) {
                    assertTrue(p.isAlive() && System.nanoTime() < deadline, "spinel did not start: " + Files.readString(log));
                    Thread.sleep(50);
                }
            }
            try (RawClient c = new RawClient(port)) {
                assertEquals("+PONG\r\n", c.callString("PING"));
                assertEquals("$2\r\nv1\r\n", setThenGet(c));
            }
        } finally {
            p.destroy();
            assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        }
        String classes = Files.readString(classLog);
        assertTrue(classes.contains("dev.spinel.server.engine.Engine "), "the class log is incomplete");
        assertFalse(classes.contains(" org.slf4j."), "SLF4J was loaded");
        assertFalse(classes.contains(" org.apache.ratis."), "Ratis was loaded with cluster mode off");
        assertFalse(classes.contains(" dev.spinel.cluster.RaftTopology"), "the Raft topology was loaded with cluster mode off");
        assertFalse(Files.readString(log).contains("SLF4J"), Files.readString(log));
    }

    private static String setThenGet(RawClient c) throws IOException {
        assertEquals("+OK\r\n", c.callString("SET", "k1", "v1"));
        return c.callString("GET", "k1");
    }
}
