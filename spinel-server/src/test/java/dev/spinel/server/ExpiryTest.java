package dev.spinel.server;

import dev.spinel.protocol.RespReader;
import dev.spinel.protocol.RespValue;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.testing.RawClient;
import dev.spinel.store.KeyHash;
import dev.spinel.store.Keyspace;
import dev.spinel.store.Segment;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Lazy and active expiry: keys with a short time to live disappear, with or without being accessed. */
class ExpiryTest {

    @Test
    void expiredKeyIsGoneOnAccess() throws Exception {
        try (SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("hz", "1"));
             RawClient c = new RawClient(server.port())) {
            c.call("SET", "k", "v", "PX", "50");
            c.call("SET", "keep", "v");
            Thread.sleep(120);
            assertEquals("$-1\r\n", c.callString("GET", "k"));
            assertEquals(":0\r\n", c.callString("EXISTS", "k"));
            assertEquals(":-2\r\n", c.callString("TTL", "k"));
            assertEquals(":1\r\n", c.callString("DBSIZE"));
            assertTrue(server.engine().keyspace().expiredKeys() >= 1);
        }
    }

    @Test
    void activeExpiryRemovesKeysNobodyReads() throws Exception {
        try (SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0"));
             RawClient c = new RawClient(server.port())) {
            int volatileKeys = 5000;
            long loadStart = System.currentTimeMillis();
            for (int i = 0; i < volatileKeys; i++) {
                c.send(args("SET", "tmp:" + i, "v", "PX", "1000"));
            }
            for (int i = 0; i < 100; i++) {
                c.send(args("SET", "keep:" + i, "v"));
            }
            c.call("SELECT", "3");
            for (int i = 0; i < 1000; i++) {
                c.send(args("SET", "tmp3:" + i, "v", "PX", "1000"));
            }
            for (int i = 0; i < volatileKeys + 1100; i++) {
                assertEquals("+OK\r\n", new String(c.readReply(), StandardCharsets.UTF_8));
            }
            c.call("SELECT", "0");
            if (System.currentTimeMillis() - loadStart < 900) { // nothing can have expired yet
                assertEquals(volatileKeys + 100, dbsize(c));
            }
            long deadline = System.currentTimeMillis() + 10_000;
            while (dbsize(c) != 100 && System.currentTimeMillis() < deadline) {
                Thread.sleep(50);
            }
            assertEquals(100, dbsize(c));
            c.call("SELECT", "3");
            while (dbsize(c) != 0 && System.currentTimeMillis() < deadline) {
                Thread.sleep(50);
            }
            assertEquals(0, dbsize(c));
            assertEquals(volatileKeys + 1000, server.engine().keyspace().expiredKeys());
        }
    }

    @Test
    void activeExpiryStaysWithinItsTimeBudget() {
        // hz 100: a budget of 2.5 ms per tick, far less than deleting a million keys takes.
        ServerConfig config = ServerConfig.defaults().with("hz", "100");
        Keyspace keyspace = new Keyspace(16);
        CommandTable table = new CommandTable();
        Engine engine = new Engine(config, keyspace, table);
        int keys = 1_000_000;
        long past = System.currentTimeMillis() - 1000;
        for (int i = 0; i < keys; i++) {
            byte[] key = ("k" + i).getBytes(StandardCharsets.US_ASCII);
            int h = KeyHash.hash(key);
            Segment seg = keyspace.db(i % 16).segment(h);
            seg.lock();
            try {
                seg.insert(key, h, key, past);
            } finally {
                seg.unlock();
            }
        }
        ServerCron cron = new ServerCron(engine);
        cron.run(); // warm-up
        long before = total(keyspace);
        // The shortest of three ticks: one may include a GC pause or a JIT compilation (CI saw a 177 ms tick once);
        // a tick that ignored its budget would take far longer every time (a million keys).
        long tookMs = Long.MAX_VALUE;
        for (int i = 0; i < 3; i++) {
            long start = System.nanoTime();
            cron.run();
            tookMs = Math.min(tookMs, (System.nanoTime() - start) / 1_000_000);
        }
        long after = total(keyspace);
        assertTrue(after < before, "a tick deletes expired keys");
        assertTrue(after > 0, "a tick stops at its budget instead of deleting everything");
        // The budget is checked between cycles, so a tick may overrun by one cycle; allow for a busy machine.
        assertTrue(tookMs < 100, "tick took " + tookMs + " ms for a 2.5 ms budget");
        int ticks = 0;
        while (total(keyspace) > 0 && ticks < 100_000) {
            cron.run();
            ticks++;
        }
        assertEquals(0, total(keyspace));
        assertEquals(keys, keyspace.expiredKeys());
    }

    private static long total(Keyspace ks) {
        long n = 0;
        for (int i = 0; i < ks.databases(); i++) {
            n += ks.db(i).size();
        }
        return n;
    }

    private static long dbsize(RawClient c) throws IOException {
        RespValue v = new RespReader(c.call("DBSIZE")).read();
        return ((RespValue.Integer) v).value();
    }

    private static List<byte[]> args(String... a) {
        return Arrays.stream(a).map(s -> s.getBytes(StandardCharsets.UTF_8)).toList();
    }
}
