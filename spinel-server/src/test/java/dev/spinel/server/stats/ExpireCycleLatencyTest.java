package dev.spinel.server.stats;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Redis's latency event {@code expire-cycle}: an active expiry cycle that takes at least
 * latency-monitor-threshold is recorded (Redis 7.0's unit/latency-monitor reads it in LATENCY LATEST).
 */
class ExpireCycleLatencyTest {
    @Test
    void aLongActiveExpiryCycleIsALatencyEvent() throws Exception {
        try (SpinelServer server = SpinelServer.startEphemeral(); RawClient c = new RawClient(server.port())) {
            assertEquals("+OK\r\n", c.callString("CONFIG", "SET", "latency-monitor-threshold", "1"));
            int keys = 100_000;
            StringBuilder pipeline = new StringBuilder();
            for (int i = 0; i < keys; i++) {
                String k = "k" + i;
                pipeline.append("*5\r\n$3\r\nSET\r\n$").append(k.length()).append("\r\n").append(k)
                        .append("\r\n$1\r\nv\r\n$2\r\nPX\r\n$3\r\n500\r\n");
            }
            c.sendRaw(pipeline.toString().getBytes(StandardCharsets.US_ASCII));
            for (int i = 0; i < keys; i++) {
                c.readReply();
            }
            long deadline = System.currentTimeMillis() + 30_000;
            while (!c.callString("DBSIZE").equals(":0\r\n") && System.currentTimeMillis() < deadline) {
                Thread.sleep(50);
            }
            assertEquals(":0\r\n", c.callString("DBSIZE"), "active expiry deleted every key");
            String latest = new String(c.call("LATENCY", "LATEST"), StandardCharsets.ISO_8859_1);
            assertTrue(latest.contains("expire-cycle"), latest);
            assertFalse(new String(c.call("LATENCY", "HISTORY", "expire-cycle"), StandardCharsets.ISO_8859_1).equals("*0\r\n"));
        }
    }
}
