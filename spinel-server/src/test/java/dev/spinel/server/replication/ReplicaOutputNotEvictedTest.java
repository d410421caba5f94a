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
 * What a replica that does not read holds on the master is left out of the maxmemory check, as Redis's
 * {@code mem_not_counted_for_evict} (unit/maxmemory's "replica buffer don't induce eviction"): writes that do not
 * grow the dataset go on being accepted and evict nothing while the replica's output grows past the limit.
 * Before, that output counted: the master evicted keys, then refused writes with OOM.
 */
class ReplicaOutputNotEvictedTest {
    @Test
    void aStalledReplicasOutputEvictsNothing() throws Exception {
        try (SpinelServer master = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("repl-diskless-sync", "no")
                     .with("repl-backlog-size", "16kb").with("maxmemory-policy", "allkeys-random"));
             RawClient m = new RawClient(master.port())) {
            String value = "x".repeat(100_000);
            for (int i = 0; i < 20; i++) {
                assertEquals("+OK\r\n", m.callString("SET", "key:" + i, value));
            }
            try (Socket replica = new Socket("127.0.0.1", master.port())) {
                replica.setReceiveBufferSize(64 * 1024);
                OutputStream out = replica.getOutputStream();
                out.write("PSYNC ? -1\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                InputStream in = replica.getInputStream();
                assertEquals('+', in.read()); // +FULLRESYNC: attached; nothing more is read from now on
                Map<String, Long> before = m.infoNumbers();
                long limit = before.get("used_memory") - before.get("mem_not_counted_for_evict") + 256 * 1024;
                assertEquals("+OK\r\n", m.callString("CONFIG", "SET", "maxmemory", Long.toString(limit)));
                String small = "A".repeat(1000);
                for (int i = 0; i < 10_000; i++) { // 10 MB of stream, the dataset unchanged
                    String reply = m.callString("SETRANGE", "key:0", "0", small);
                    if (!reply.equals(":100000\r\n")) {
                        throw new AssertionError("write " + i + ": " + reply + " limit " + limit + " before " + before + " now " + m.infoNumbers());
                    }
                }
                Map<String, Long> after = m.infoNumbers();
                assertTrue(after.get("mem_clients_slaves") > 4L << 20, "the replica's output is held: " + after);
                assertTrue(after.get("mem_not_counted_for_evict") >= after.get("mem_clients_slaves"), "not counted: " + after);
                assertTrue(after.get("used_memory") > limit, "used_memory still shows it: " + after);
                assertEquals(0L, after.get("evicted_keys"), "evicted: " + after);
                assertEquals(":20\r\n", m.callString("DBSIZE"));
                // the unit then kills the replica and reads INFO at once: what was held for it is gone, as Redis
                // frees the client before CLIENT KILL answers (Spinel freed it later, on the replica's own loop)
                assertEquals(":1\r\n", m.callString("CLIENT", "KILL", "TYPE", "SLAVE"));
                Map<String, Long> killed = m.infoNumbers();
                assertEquals(0L, killed.get("mem_clients_slaves"), "after the kill: " + killed);
                assertEquals(0L, killed.get("mem_not_counted_for_evict"), "after the kill: " + killed);
            }
        }
    }
}
