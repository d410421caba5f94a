package dev.spinel.server.commands;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.store.Database;
import dev.spinel.store.Entry;
import dev.spinel.store.KeyHash;
import dev.spinel.store.Segment;
import dev.spinel.store.TypedValue;
import dev.spinel.store.ValueType;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * TYPE, OBJECT ENCODING, COPY, RENAME and MOVE on collection values, which reach these commands only
 * through {@link TypedValue} (the collection commands live elsewhere), and OBJECT FREQ under LFU.
 */
class KeyCommandsTypedValueTest {

    /** A minimal collection value: enough to see which interface methods the key commands use. */
    private static final class FakeList implements TypedValue {
        final long size;

        FakeList(long size) {
            this.size = size;
        }

        @Override
        public ValueType type() {
            return ValueType.LIST;
        }

        @Override
        public String encoding() {
            return "listpack";
        }

        @Override
        public long memoryUsage() {
            return 64;
        }

        @Override
        public TypedValue copy() {
            return new FakeList(size);
        }

        @Override
        public long size() {
            return size;
        }
    }

    @Test
    void collectionsGoThroughTypedValue() throws Exception {
        try (SpinelServer server = SpinelServer.startEphemeral();
             RawClient c = new RawClient(server.port())) {
            Database db0 = server.engine().keyspace().db(0);
            FakeList original = new FakeList(3);
            put(db0, "list", original, System.currentTimeMillis() + 100_000);
            assertEquals("+list\r\n", c.callString("TYPE", "list"));
            assertEquals("$8\r\nlistpack\r\n", c.callString("OBJECT", "ENCODING", "list"));
            assertEquals(":1\r\n", c.callString("OBJECT", "REFCOUNT", "list"));

            assertEquals(":1\r\n", c.callString("COPY", "list", "copy"));
            Object copied = value(db0, "copy");
            assertNotSame(original, copied, "COPY makes a deep copy");
            assertEquals(3, ((FakeList) copied).size);
            assertEquals(":100\r\n", c.callString("TTL", "copy"));

            assertEquals("+OK\r\n", c.callString("RENAME", "list", "renamed"));
            assertSame(original, value(db0, "renamed"), "RENAME moves the value itself");
            assertEquals(":1\r\n", c.callString("MOVE", "renamed", "1"));
            assertSame(original, value(server.engine().keyspace().db(1), "renamed"));
            assertEquals(":1\r\n", c.callString("COPY", "copy", "copy", "DB", "2"));
            assertEquals("+list\r\n", c.callString("TYPE", "copy"));

            assertEquals("*2\r\n$1\r\n0\r\n*1\r\n$4\r\ncopy\r\n", c.callString("SCAN", "0", "TYPE", "list"));
            assertEquals("*2\r\n$1\r\n0\r\n*0\r\n", c.callString("SCAN", "0", "TYPE", "string"));
        }
    }

    @Test
    void objectFreqUnderAnLfuPolicy() throws Exception {
        ServerConfig config = ServerConfig.defaults().with("port", "0").with("maxmemory-policy", "allkeys-lfu");
        try (SpinelServer server = SpinelServer.start(config);
             RawClient c = new RawClient(server.port())) {
            c.call("SET", "k", "hello");
            assertEquals(":5\r\n", c.callString("OBJECT", "FREQ", "k")); // Redis's LFU_INIT_VAL
            c.call("GET", "k");
            assertEquals(":6\r\n", c.callString("OBJECT", "FREQ", "k")); // below the init value every hit counts
            assertEquals(":6\r\n", c.callString("OBJECT", "FREQ", "k")); // OBJECT does not touch
            assertEquals("-ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when "
                    + "switching between policies at runtime LRU and LFU data will take some time to adjust.\r\n",
                    c.callString("OBJECT", "IDLETIME", "k"));
            server.config().set("maxmemory-policy", "allkeys-lru");
            c.call("SET", "k2", "hello");
            assertEquals(":0\r\n", c.callString("OBJECT", "IDLETIME", "k2"));
            assertEquals('-', c.callString("OBJECT", "FREQ", "k2").charAt(0));
        }
    }

    @Test
    void inspectionDoesNotRefreshTheIdleTimeButReadsDo() throws Exception {
        try (SpinelServer server = SpinelServer.startEphemeral();
             RawClient c = new RawClient(server.port())) {
            c.call("SET", "k", "hello");
            Thread.sleep(2100);
            // TYPE, EXISTS, TTL, OBJECT and SCAN look keys up without touching them, as Redis does.
            c.call("TYPE", "k");
            c.call("EXISTS", "k");
            c.call("TTL", "k");
            c.call("OBJECT", "ENCODING", "k");
            c.call("SCAN", "0", "TYPE", "string");
            String idle = c.callString("OBJECT", "IDLETIME", "k");
            assertTrue(idle.equals(":2\r\n") || idle.equals(":3\r\n"), idle);
            c.call("GET", "k");
            String fresh = c.callString("OBJECT", "IDLETIME", "k"); // 1 only if a clock second ticked in between
            assertTrue(fresh.equals(":0\r\n") || fresh.equals(":1\r\n"), fresh);
        }
    }

    private static void put(Database db, String k, Object value, long expireAt) {
        byte[] key = k.getBytes(StandardCharsets.UTF_8);
        int h = KeyHash.hash(key);
        Segment seg = db.segment(h);
        seg.lock();
        try {
            seg.put(key, h, value, expireAt);
        } finally {
            seg.unlock();
        }
    }

    private static Object value(Database db, String k) {
        byte[] key = k.getBytes(StandardCharsets.UTF_8);
        int h = KeyHash.hash(key);
        Segment seg = db.segment(h);
        seg.lock();
        try {
            Entry e = seg.find(key, 0, key.length, h);
            return e == null ? null : e.value();
        } finally {
            seg.unlock();
        }
    }
}
