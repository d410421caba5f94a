package dev.spinel.server.engine;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.engine.tracking.Tracking;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * tracking-table-max-keys (Redis 7.0's unit/tracking "Tracking gets notification on tracking table key
 * eviction"): lowered under the table's size, keys are dropped from it and their clients get an invalidation,
 * as if the keys had changed. Spinel accepted the setting and did nothing, and the test waited forever.
 */
class TrackingTableLimitTest {
    @Test
    void keysPastTheLimitAreInvalidated() throws Exception {
        try (SpinelServer server = SpinelServer.startEphemeral(); RawClient c = new RawClient(server.port())) {
            c.call("HELLO", "3");
            assertEquals("+OK\r\n", c.callString("CLIENT", "TRACKING", "on"));
            c.call("MSET", "key1", "1", "key2", "2");
            c.call("MGET", "key1", "key2");
            assertTrue(c.callString("INFO", "stats").contains("tracking_total_keys:2"));
            assertEquals("+OK\r\n", c.callString("CONFIG", "SET", "tracking-table-max-keys", "1"));
            String push = new String(c.readReply(), StandardCharsets.ISO_8859_1); // within a cron tick
            assertTrue(push.startsWith(">2\r\n$10\r\ninvalidate\r\n*1\r\n$4\r\nkey"), push);
            assertTrue(c.callString("INFO", "stats").contains("tracking_total_keys:1"));
            assertEquals("+OK\r\n", c.callString("CONFIG", "SET", "tracking-table-max-keys", "0"));
        }
    }
}
