package dev.spinel.server.engine;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.engine.clients.MemoryAccounting;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** maxmemory by used_memory (MemoryAccounting): refused writes under noeviction, evictions under the other policies. */
class EvictionTest {
    private static final String VALUE = "v".repeat(1000);

    /** A limit that leaves room for about half the dataset (used_memory also counts the server's overhead). */
    private static long halfTheData(SpinelServer server) {
        MemoryAccounting m = server.engine().memory();
        m.sampleClients(); // else the cron's next sample (this client's buffers) may land after the limit is set
        return m.used() - m.dataset() / 2;
    }

    @Test
    void noevictionRefusesWritesButServesReadsAndDeletes() throws Exception {
        try (SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0"));
             RawClient c = new RawClient(server.port())) {
            for (int i = 0; i < 200; i++) {
                c.call("SET", "k" + i, VALUE);
            }
            c.call("CONFIG", "SET", "maxmemory", Long.toString(halfTheData(server)));
            assertEquals("-OOM command not allowed when used memory > 'maxmemory'.\r\n", c.callString("SET", "new", "x"));
            assertEquals("-OOM command not allowed when used memory > 'maxmemory'.\r\n", c.callString("LPUSH", "l", "x"));
            assertTrue(c.callString("GET", "k1").startsWith("$1000"), "reads still work");
            assertEquals("+OK\r\n", c.callString("MULTI"));
            assertTrue(c.callString("SET", "new", "x").startsWith("-OOM"), "refused at queue time");
            assertTrue(c.callString("EXEC").startsWith("-EXECABORT"));
            assertEquals(":1\r\n", c.callString("DEL", "k1"), "deletes still work");
            assertEquals(":199\r\n", c.callString("DBSIZE"));
        }
    }

    @Test
    void allkeysLruEvictsTheLeastRecentlyUsedKeysToStayUnderTheLimit() throws Exception {
        try (SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0")
                .with("maxmemory-policy", "allkeys-lru").with("maxmemory-samples", "10"));
             RawClient c = new RawClient(server.port());
             RawClient watcher = new RawClient(server.port())) {
            for (int i = 0; i < 200; i++) {
                c.call("SET", "k" + i, VALUE);
            }
            // The LRU clock ticks once a second (Redis's resolution too): "fresh" must be stamped after the
            // others, or it ties with them and any eviction the next commands need may pick it.
            Thread.sleep(1100);
            long limit = halfTheData(server);
            c.call("CONFIG", "SET", "notify-keyspace-events", "Ee");
            watcher.call("SUBSCRIBE", "__keyevent@0__:evicted");
            c.call("CONFIG", "SET", "maxmemory", Long.toString(limit)); // evicts at once, as Redis
            assertEquals("+OK\r\n", c.callString("SET", "fresh", VALUE));
            assertTrue(server.engine().evictor().usedMemory() <= limit + 2048, "back under the limit");
            assertTrue(server.engine().evictor().evictedKeys() >= 90, "about half the keys went");
            assertEquals("$1000", c.callString("GET", "fresh").substring(0, 5));
            String message = new String(watcher.readReply(), StandardCharsets.UTF_8);
            assertTrue(message.contains("__keyevent@0__:evicted"), message);
            String info = c.callString("INFO", "stats");
            assertTrue(info.contains("evicted_keys:" + server.engine().evictor().evictedKeys()), info);
        }
    }

    @Test
    void volatilePoliciesOnlyEvictKeysWithATimeToLive() throws Exception {
        try (SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0")
                .with("maxmemory-policy", "volatile-ttl"));
             RawClient c = new RawClient(server.port())) {
            for (int i = 0; i < 100; i++) {
                c.call("SET", "keep" + i, VALUE);
                c.call("SET", "tmp" + i, VALUE, "EX", Integer.toString(1000 + i));
            }
            MemoryAccounting m = server.engine().memory();
            m.sampleClients();
            c.call("CONFIG", "SET", "maxmemory", Long.toString(m.used() - m.dataset() / 4));
            assertEquals("+OK\r\n", c.callString("SET", "one-more", "x"));
            for (int i = 0; i < 100; i++) {
                assertTrue(c.callString("EXISTS", "keep" + i).equals(":1\r\n"), "persistent keys stay");
            }
            // Once only persistent keys are left, nothing can be evicted: writes are refused.
            c.call("CONFIG", "SET", "maxmemory", "1");
            assertTrue(c.callString("SET", "x", "y").startsWith("-OOM"));
        }
    }

    @Test
    void evictedKeysAreLoggedAsDelSoARestartDoesNotBringThemBack(@org.junit.jupiter.api.io.TempDir Path dir)
            throws Exception {
        ServerConfig config = ServerConfig.defaults().with("port", "0").with("dir", dir.toString())
                .with("appendonly", "yes").with("appendfsync", "always").with("maxmemory-policy", "allkeys-random");
        long remaining;
        try (SpinelServer server = SpinelServer.start(config); RawClient c = new RawClient(server.port())) {
            for (int i = 0; i < 100; i++) {
                c.call("SET", "k" + i, VALUE);
            }
            c.call("CONFIG", "SET", "maxmemory", Long.toString(halfTheData(server)));
            c.call("SET", "trigger", "x");
            assertTrue(server.engine().evictor().evictedKeys() > 0);
            remaining = Long.parseLong(c.callString("DBSIZE").substring(1).trim());
        }
        try (SpinelServer again = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", dir.toString())
                .with("appendonly", "yes"));
             RawClient c = new RawClient(again.port())) {
            assertEquals(":" + remaining + "\r\n", c.callString("DBSIZE"), "evicted keys stay gone after a restart");
        }
    }
}
