package dev.spinel.server.cluster;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.ConnectException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A cluster node answers no command before its topology is up: the port is bound first (the node announces the
 * port it got), then Raft starts, which takes at least a leader election of its one-node group (300-600 ms) and
 * seconds on a loaded machine; a client connecting meanwhile waits, as one connecting to a starting Redis does.
 * Redis's Tcl suite meets nodes as soon as they answer PING; before this, such a MEET failed on a node without a
 * topology (and CLUSTER INFO closed the connection).
 */
class ClusterStartTest {
    private static final int PORT = 22601;

    @Test
    @Timeout(120)
    void aClientConnectingWhileTheTopologyStartsWaitsForIt() throws Exception {
        String dir = Files.createTempDirectory("spinel-cluster-start").toString();
        CompletableFuture<SpinelServer> server = CompletableFuture.supplyAsync(() -> SpinelServer.start(
                ServerConfig.defaults().with("port", Integer.toString(PORT)).with("cluster-enabled", "yes").with("dir", dir)));
        String early;
        Socket socket = connectWhileStarting();
        try (RawClient c = new RawClient(socket)) {
            socket.setSoTimeout(100_000);
            c.send(List.of("CLUSTER".getBytes(StandardCharsets.US_ASCII), "MYID".getBytes(StandardCharsets.US_ASCII)));
            early = new String(c.readReply(), StandardCharsets.US_ASCII);
        }
        try (SpinelServer s = server.get(100, TimeUnit.SECONDS); RawClient c = new RawClient(PORT)) {
            String id = c.callString("CLUSTER", "MYID");
            assertEquals("$40\r\n", id.substring(0, 5), id);
            assertEquals(id, early);
        }
    }

    private static Socket connectWhileStarting() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try {
                return new Socket("127.0.0.1", PORT);
            } catch (ConnectException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(5);
            }
        }
    }
}
