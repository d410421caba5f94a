package dev.spinel.server.cluster;

import dev.spinel.protocol.Args;
import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.engine.Session;
import dev.spinel.server.engine.ports.InternalConnection;
import dev.spinel.server.testing.Allocations;
import dev.spinel.server.testing.Await;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Cluster mode's check of a single-key request on a slot this node serves allocates nothing (it used to build
 * the request's key array per command), through the engine without the network, as InlineStringHotPathTest.
 */
// Port 22701: its bus (+10000) stays below the kernel's ephemeral range (32768+), where an outgoing connection may hold it.
class ClusterRoutingHotPathTest {
    @Test
    void routedGetAllocatesNothing() throws Exception {
        ServerConfig config = ServerConfig.defaults().with("port", "22701").with("grpc-port", "0")
                .with("cluster-enabled", "yes").with("dir", Files.createTempDirectory("spinel-routing").toString());
        try (SpinelServer server = SpinelServer.start(config); RawClient c = new RawClient(server.port())) {
            assertEquals("+OK\r\n", c.callString("CLUSTER", "ADDSLOTSRANGE", "0", "16383"));
            Await.waitFor(() -> c.callString("CLUSTER", "INFO").contains("cluster_state:ok"), "cluster_state:ok");
            Engine engine = server.engine();
            Session session = engine.open(new InternalConnection("routing:0"));
            String value = "v".repeat(31) + "!";
            engine.execute(session, Args.of("SET", "memtier-123456", value));
            session.out().clear();
            Args get = Args.of("GET", "memtier-123456");
            engine.execute(session, get);
            assertEquals("$32\r\n" + value + "\r\n", new String(session.out().array(), 0, session.out().size(), StandardCharsets.US_ASCII));
            for (int round = 0; round < 3; round++) { // warm-up: let the JIT compile the path
                Allocations.perCall(engine, session, get, 50_000);
            }
            long perGet = Allocations.perCall(engine, session, get, 100_000);
            assertTrue(perGet < 8, perGet + " bytes allocated per routed GET");
            // a slot this node does not serve still redirects (the general path)
            assertEquals("+OK\r\n", c.callString("CLUSTER", "DELSLOTS", "12182"));
            assertEquals("-CLUSTERDOWN Hash slot not served\r\n", c.callString("GET", "foo"));
        }
    }
}
