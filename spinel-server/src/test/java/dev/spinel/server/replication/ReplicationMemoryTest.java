package dev.spinel.server.replication;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * INFO memory's replication figures: {@code mem_clients_slaves} is what the master holds for a replica that does
 * not read (its pending output), {@code mem_total_replication_buffers} that plus the backlog, and the replica's
 * connection is not counted again in {@code mem_clients_normal}; they go back down when the replica is dropped.
 */
class ReplicationMemoryTest {
    @Test
    void aReplicaThatDoesNotReadIsCountedInTheReplicationBuffers() throws Exception {
        try (SpinelServer master = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("repl-diskless-sync", "no")
                     .with("repl-backlog-size", "8mb")); // the writes stay in the backlog until copied to the replica
             RawClient m = new RawClient(master.port())) {
            Map<String, Long> idle = m.infoNumbers("memory");
            assertEquals(0L, idle.get("mem_total_replication_buffers"));
            assertEquals(0L, idle.get("mem_clients_slaves"));
            try (Socket replica = new Socket("127.0.0.1", master.port())) {
                replica.setReceiveBufferSize(64 * 1024);
                OutputStream out = replica.getOutputStream();
                out.write("PSYNC ? -1\r\n".getBytes(StandardCharsets.US_ASCII)); // disk-style RDB, then the stream
                out.flush();
                InputStream in = replica.getInputStream();
                assertEquals('+', in.read()); // +FULLRESYNC: attached; nothing more is read from now on
                String value = "x".repeat(256 << 10);
                for (int i = 0; i < 80; i++) {
                    assertEquals("+OK\r\n", m.callString("SET", "k" + i, value));
                }
                Map<String, Long> mem = m.infoNumbers("memory");
                long deadline = System.nanoTime() + 10_000_000_000L;
                while (mem.get("mem_clients_slaves") < 8L << 20) { // the kernel's buffers take the rest
                    assertTrue(System.nanoTime() < deadline, "replica output not counted: " + mem);
                    Thread.sleep(50);
                    mem = m.infoNumbers("memory");
                }
                assertEquals(mem.get("mem_replication_backlog") + mem.get("mem_clients_slaves"), mem.get("mem_total_replication_buffers"));
                assertEquals(8L << 20, mem.get("mem_replication_backlog"));
                assertTrue(mem.get("mem_clients_normal") < 1L << 20, "the replica counted as a normal client too: " + mem);
                assertEquals(":1\r\n", m.callString("CLIENT", "KILL", "TYPE", "replica"));
                deadline = System.nanoTime() + 10_000_000_000L;
                while ((mem = m.infoNumbers("memory")).get("mem_clients_slaves") != 0) {
                    assertTrue(System.nanoTime() < deadline, "still counted after the drop: " + mem);
                    Thread.sleep(50);
                }
                assertEquals(mem.get("mem_replication_backlog"), mem.get("mem_total_replication_buffers"));
            }
        }
    }
}
