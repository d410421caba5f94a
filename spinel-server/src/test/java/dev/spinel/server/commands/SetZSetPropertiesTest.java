package dev.spinel.server.commands;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.store.Database;
import dev.spinel.store.Entry;
import dev.spinel.store.KeyHash;
import dev.spinel.store.Segment;
import dev.spinel.store.types.SetValue;
import dev.spinel.store.types.ZSetValue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What differential scripts cannot check: the random commands' properties (SPOP, SRANDMEMBER,
 * ZRANDMEMBER), the configured encoding thresholds reaching the stored values, and atomicity of
 * multi-key set commands under concurrent clients.
 */
class SetZSetPropertiesTest {
    private static SpinelServer server;

    @BeforeAll
    static void start() {
        server = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("set-max-intset-entries", "4")
                .with("zset-max-ziplist-entries", "3").with("zset-max-listpack-value", "8"));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    /** Elements of a flat array reply of bulk strings. */
    private static List<String> elements(byte[] reply) {
        String s = new String(reply, StandardCharsets.UTF_8);
        String[] lines = s.split("\r\n");
        List<String> out = new ArrayList<>();
        for (int i = 1; i + 1 < lines.length; i += 2) {
            out.add(lines[i + 1]);
        }
        return out;
    }

    private static Object value(String key) {
        Database db = server.engine().keyspace().db(0);
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        Segment seg = db.segment(KeyHash.hash(k, 0, k.length));
        seg.lock();
        try {
            Entry e = seg.get(k, 0, k.length, KeyHash.hash(k, 0, k.length), System.currentTimeMillis());
            return e == null ? null : e.value();
        } finally {
            seg.unlock();
        }
    }

    @Test
    void configuredThresholdsDecideEncodings() throws IOException {
        try (RawClient c = new RawClient(server.port())) {
            c.call("SADD", "enc:s", "1", "2", "3", "4");
            assertEquals("intset", ((SetValue) value("enc:s")).encoding());
            c.call("SADD", "enc:s", "5");
            assertEquals("hashtable", ((SetValue) value("enc:s")).encoding());
            c.call("ZADD", "enc:z", "1", "a", "2", "b", "3", "c");
            assertEquals("listpack", ((ZSetValue) value("enc:z")).encoding());
            c.call("ZADD", "enc:z", "4", "d");
            assertEquals("skiplist", ((ZSetValue) value("enc:z")).encoding());
            c.call("ZADD", "enc:z2", "1", "123456789");
            assertEquals("skiplist", ((ZSetValue) value("enc:z2")).encoding());
            c.call("ZUNIONSTORE", "enc:z3", "1", "enc:z2");
            assertEquals("skiplist", ((ZSetValue) value("enc:z3")).encoding());
            c.call("ZREMRANGEBYRANK", "enc:z", "0", "1");
            c.call("ZUNIONSTORE", "enc:z4", "1", "enc:z");
            assertEquals("listpack", ((ZSetValue) value("enc:z4")).encoding(), "STORE results convert back when small");
        }
    }

    @Test
    void spopReturnsDistinctMembersAndRemovesThem() throws IOException {
        try (RawClient c = new RawClient(server.port())) {
            for (String first : new String[] {"1", "a"}) { // intset and hashtable
                String key = "pop:" + first;
                List<String> all = new ArrayList<>();
                for (int i = 0; i < 50; i++) {
                    all.add(first.equals("1") ? Integer.toString(i) : "m" + i);
                }
                List<String> args = new ArrayList<>(List.of("SADD", key));
                args.addAll(all);
                c.call(args.toArray(new String[0]));
                Set<String> popped = new HashSet<>();
                List<String> some = elements(c.call("SPOP", key, "7"));
                assertEquals(7, some.size());
                popped.addAll(some);
                assertEquals(7, popped.size(), "distinct");
                String one = elements(("*1\r\n" + new String(c.call("SPOP", key), StandardCharsets.UTF_8))
                        .getBytes(StandardCharsets.UTF_8)).get(0);
                assertTrue(popped.add(one));
                List<String> rest = elements(c.call("SPOP", key, "1000"));
                popped.addAll(rest);
                assertEquals(new HashSet<>(all), popped);
                assertNull(value(key), "emptied key is deleted");
            }
        }
    }

    @Test
    void srandmemberCountsAndRepeats() throws IOException {
        try (RawClient c = new RawClient(server.port())) {
            c.call("SADD", "rnd:s", "a", "b", "c", "d", "e", "f", "g", "h");
            for (int t = 0; t < 50; t++) {
                List<String> distinct = elements(c.call("SRANDMEMBER", "rnd:s", "5"));
                assertEquals(5, new HashSet<>(distinct).size());
                assertTrue(Set.of("a", "b", "c", "d", "e", "f", "g", "h").containsAll(distinct));
            }
            for (String first : new String[] {"0", "m"}) { // intset and hashtable, count small against size
                List<String> big = new ArrayList<>(List.of("SADD", "rnd:big" + first));
                for (int i = 0; i < 300; i++) {
                    big.add(first.equals("0") ? Integer.toString(i) : "m" + i);
                }
                c.call(big.toArray(new String[0]));
                for (int t = 0; t < 20; t++) {
                    List<String> few = elements(c.call("SRANDMEMBER", "rnd:big" + first, "20"));
                    assertEquals(20, new HashSet<>(few).size());
                    assertTrue(big.subList(2, big.size()).containsAll(few));
                }
            }
            List<String> repeated = elements(c.call("SRANDMEMBER", "rnd:s", "-200"));
            assertEquals(200, repeated.size());
            assertEquals(8, new HashSet<>(repeated).size(), "200 draws from 8 cover all (p of a miss ~1e-11)");
            assertEquals(8, elements(c.call("SMEMBERS", "rnd:s")).size(), "SRANDMEMBER does not remove");
        }
    }

    @Test
    void zrandmemberDistinctAndWithScores() throws IOException {
        try (RawClient c = new RawClient(server.port())) {
            c.call("ZADD", "rnd:z", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e");
            for (int t = 0; t < 50; t++) {
                List<String> el = elements(c.call("ZRANDMEMBER", "rnd:z", "3", "WITHSCORES"));
                assertEquals(6, el.size());
                Set<String> members = new HashSet<>();
                for (int i = 0; i < 6; i += 2) {
                    members.add(el.get(i));
                    assertEquals(Integer.toString(el.get(i).charAt(0) - 'a' + 1), el.get(i + 1));
                }
                assertEquals(3, members.size());
            }
            List<String> zbig = new ArrayList<>(List.of("ZADD", "rnd:zbig"));
            for (int i = 0; i < 300; i++) {
                zbig.add(Integer.toString(i));
                zbig.add("m" + i);
            }
            c.call(zbig.toArray(new String[0]));
            // a repeated-pick count Redis would reply to until memory runs out is refused, WITHSCORES too
            assertEquals("-ERR value is out of range\r\n", c.callString("ZRANDMEMBER", "rnd:z", "-4000000000000000000", "WITHSCORES"));
            assertEquals("-ERR value is out of range\r\n", c.callString("ZRANDMEMBER", "rnd:z", "-4000000000000000000"));
            // the same guard for HRANDFIELD (it built a reply of billions of pairs: Redis's own test suite's
            // "HRANDFIELD count overflow" case lost its connection)
            c.call("HSET", "rnd:h", "a", "1");
            assertEquals("-ERR value is out of range\r\n", c.callString("HRANDFIELD", "rnd:h", "-4000000000000000000", "WITHVALUES"));
            assertEquals("-ERR value is out of range\r\n", c.callString("HRANDFIELD", "rnd:h", "-4000000000000000000"));
            for (int t = 0; t < 20; t++) {
                List<String> el = elements(c.call("ZRANDMEMBER", "rnd:zbig", "20", "WITHSCORES"));
                Set<String> members = new HashSet<>();
                for (int i = 0; i < el.size(); i += 2) {
                    members.add(el.get(i));
                    assertEquals("m" + el.get(i + 1), el.get(i));
                }
                assertEquals(20, members.size());
            }
            List<String> rep = elements(c.call("ZRANDMEMBER", "rnd:z", "-100"));
            assertEquals(100, rep.size());
            assertEquals(5, new HashSet<>(rep).size());
        }
    }

    @Test
    void smoveBetweenSetsIsAtomicUnderConcurrency() throws Exception {
        try (RawClient c = new RawClient(server.port())) {
            List<String> args = new ArrayList<>(List.of("SADD", "{mv}a"));
            for (int i = 0; i < 200; i++) {
                args.add("x" + i);
            }
            c.call(args.toArray(new String[0]));
        }
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            final int id = t;
            Thread th = new Thread(() -> {
                try (RawClient c = new RawClient(server.port())) {
                    for (int i = 0; i < 2000; i++) {
                        String m = "x" + ((i * 7 + id) % 200);
                        if ((i + id) % 2 == 0) {
                            c.call("SMOVE", "{mv}a", "{mv}b", m);
                        } else {
                            c.call("SMOVE", "{mv}b", "{mv}a", m);
                        }
                        if (i % 100 == 0) {
                            c.call("SUNIONSTORE", "{mv}u", "{mv}a", "{mv}b");
                            String n = new String(c.call("SCARD", "{mv}u"), StandardCharsets.UTF_8);
                            if (!n.equals(":200\r\n")) {
                                throw new AssertionError("union lost or duplicated members: " + n);
                            }
                        }
                    }
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            threads.add(th);
            th.start();
        }
        for (Thread th : threads) {
            th.join();
        }
        if (failure.get() != null) {
            throw new AssertionError(failure.get());
        }
        try (RawClient c = new RawClient(server.port())) {
            String a = new String(c.call("SCARD", "{mv}a"), StandardCharsets.UTF_8);
            String b = new String(c.call("SCARD", "{mv}b"), StandardCharsets.UTF_8);
            long total = Long.parseLong(a.substring(1).trim()) + Long.parseLong(b.substring(1).trim());
            assertEquals(200, total);
            assertEquals(":0\r\n", new String(c.call("SINTERCARD", "2", "{mv}a", "{mv}b"), StandardCharsets.UTF_8));
        }
    }
}
