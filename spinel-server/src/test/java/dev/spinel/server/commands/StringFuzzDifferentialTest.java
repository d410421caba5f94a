package dev.spinel.server.commands;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import dev.spinel.store.KeyHash;
import dev.spinel.store.Segment;
import dev.spinel.store.TypedValue;
import dev.spinel.store.ValueType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Randomised differential tests for the string commands whose outputs are too many to script:
 * INCRBYFLOAT's long double digits, LCS's match ranges, GETRANGE/SETRANGE arithmetic, and the
 * proto-max-bulk-len limits (both servers run with a 1mb limit so the limits are cheap to reach).
 * Replies must be byte-identical to redis-server's. Seeds are fixed so that failures reproduce.
 */
class StringFuzzDifferentialTest {
    private static RedisServerProcess redis;
    private static SpinelServer spinel;
    private static RawClient toRedis;
    private static RawClient toSpinel;
    private final List<String> failures = new ArrayList<>();

    @BeforeAll
    static void start() throws IOException {
        redis = RedisServerProcess.start("--proto-max-bulk-len", "1mb");
        spinel = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("proto-max-bulk-len", "1mb"));
        toRedis = new RawClient(redis.port());
        toSpinel = new RawClient(spinel.port());
    }

    @AfterAll
    static void stop() throws IOException {
        if (toRedis != null) {
            toRedis.close();
            toSpinel.close();
        }
        if (spinel != null) {
            spinel.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    @BeforeEach
    void flush() throws IOException {
        toRedis.call("FLUSHALL");
        toSpinel.call("FLUSHALL");
    }

    private void same(String... args) throws IOException {
        List<byte[]> argv = new ArrayList<>();
        for (String a : args) {
            argv.add(a.getBytes(StandardCharsets.ISO_8859_1));
        }
        String r = new String(toRedis.call(argv), StandardCharsets.ISO_8859_1);
        String s = new String(toSpinel.call(argv), StandardCharsets.ISO_8859_1);
        if (!r.equals(s)) {
            failures.add(String.join(" ", args) + "\n    spinel: " + s.strip() + "\n    redis:  " + r.strip());
        }
    }

    private void check() {
        if (!failures.isEmpty()) {
            fail(failures.size() + " difference(s):\n"
                    + String.join("\n", failures.subList(0, Math.min(30, failures.size()))));
        }
    }

    /** A number in one of the many spellings strtold accepts (and some it refuses). */
    private static String randomNumber(Random rnd) {
        return switch (rnd.nextInt(13)) {
            case 0 -> Double.toString(rnd.nextDouble() * Math.pow(10, rnd.nextInt(40) - 20));
            case 1 -> Long.toString(rnd.nextLong() >> rnd.nextInt(64));
            case 2 -> (rnd.nextBoolean() ? "-" : "") + rnd.nextInt(1000) + "." + rnd.nextInt(1000);
            case 3 -> rnd.nextInt(100) + "e" + (rnd.nextInt(700) - 350);
            case 4 -> rnd.nextInt(10) + "." + randomDigits(rnd, 1 + rnd.nextInt(30)) + "e" + (rnd.nextInt(9000) - 4500);
            case 5 -> "0x" + Long.toHexString(rnd.nextLong()) + "p" + (rnd.nextInt(200) - 100);
            case 6 -> "0." + "0".repeat(rnd.nextInt(25)) + randomDigits(rnd, 1 + rnd.nextInt(5));
            case 7 -> randomDigits(rnd, 1 + rnd.nextInt(40)) + "." + randomDigits(rnd, rnd.nextInt(40));
            case 8 -> new BigDecimal(rnd.nextDouble()).toPlainString();
            case 9 -> pick(rnd, "inf", "-inf", "nan", "+5", ".5", "5.", "1e", "0x", "0x.8p1", "1e5000", "1e-5000",
                    "2e-4951", "1e-4951", "1.18973149535723176502e4932", "1.18973149535723176509e4932", "-0",
                    "-0.0", "00012", " 1", "1 ", "1_0", "e5", ".", "-", "+", "0e99999999999999999999",
                    "1e99999999999999999999", "InFiNiTy", "infinit", "0X1P-16445", "0x1p-16446", "0x1p16383",
                    "0x1p16384", "0x1.fffffffffffffffep16383", "0x1.ffffffffffffffffp16383");
            case 10 -> Float.toString(rnd.nextFloat() * 1000);
            case 11 -> switch (rnd.nextInt(4)) {
                // significands wider than 64 bits, and inputs at Redis's 5120-byte limit
                case 0 -> "0x" + Long.toHexString(rnd.nextLong()) + Long.toHexString(rnd.nextLong()) + "p-" + rnd.nextInt(130);
                case 1 -> "0." + randomDigits(rnd, 5117 + rnd.nextInt(3));
                case 2 -> "1" + "0".repeat(rnd.nextInt(30)) + "." + randomDigits(rnd, 60);
                default -> randomDigits(rnd, 25) + "e-" + rnd.nextInt(30);
            };
            default -> (rnd.nextBoolean() ? "-" : "") + "0.1";
        };
    }

    private static String pick(Random rnd, String... choices) {
        return choices[rnd.nextInt(choices.length)];
    }

    private static String randomDigits(Random rnd, int n) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n; i++) {
            sb.append((char) ('0' + rnd.nextInt(10)));
        }
        return sb.toString();
    }

    @Test
    void incrbyfloatMatchesRedisDigits() throws IOException {
        Random rnd = new Random(7100);
        for (int round = 0; round < 3000; round++) {
            String key = "f" + rnd.nextInt(20);
            if (rnd.nextInt(8) == 0) {
                same("SET", key, randomNumber(rnd));
            }
            same("INCRBYFLOAT", key, randomNumber(rnd));
            if (rnd.nextInt(10) == 0) {
                same("GET", key);
            }
        }
        check();
    }

    @Test
    void incrbyfloatSmallSteps() throws IOException {
        // Long runs of the same small increment accumulate long double rounding exactly as Redis does.
        for (String step : List.of("0.1", "-0.3", "0.000001", "1.1", "3.0e3", "1e-17", "123456789.987654321")) {
            for (int i = 0; i < 200; i++) {
                same("INCRBYFLOAT", "acc" + step, step);
            }
        }
        check();
    }

    @Test
    void lcsMatchesRedisRanges() throws IOException {
        Random rnd = new Random(7101);
        for (int round = 0; round < 400; round++) {
            same("SET", "a", randomString(rnd, rnd.nextInt(40), 2 + rnd.nextInt(4)));
            same("SET", "b", randomString(rnd, rnd.nextInt(40), 2 + rnd.nextInt(4)));
            same("LCS", "a", "b");
            same("LCS", "a", "b", "LEN");
            same("LCS", "a", "b", "IDX");
            same("LCS", "a", "b", "IDX", "WITHMATCHLEN");
            same("LCS", "a", "b", "IDX", "MINMATCHLEN", Integer.toString(rnd.nextInt(5)), "WITHMATCHLEN");
        }
        check();
    }

    private static String randomString(Random rnd, int len, int alphabet) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < len; i++) {
            sb.append((char) ('a' + rnd.nextInt(alphabet)));
        }
        return sb.toString();
    }

    @Test
    void rangesMatchRedis() throws IOException {
        Random rnd = new Random(7102);
        for (int round = 0; round < 1500; round++) {
            String key = "r" + rnd.nextInt(4);
            switch (rnd.nextInt(4)) {
                case 0 -> same("SETRANGE", key, Integer.toString(rnd.nextInt(30)), randomString(rnd, rnd.nextInt(6), 26));
                case 1 -> same("APPEND", key, randomString(rnd, rnd.nextInt(6), 26));
                case 2 -> same("STRLEN", key);
                default -> same(rnd.nextBoolean() ? "GETRANGE" : "SUBSTR", key, Integer.toString(rnd.nextInt(60) - 30),
                        Integer.toString(rnd.nextInt(60) - 30));
            }
            if (rnd.nextInt(50) == 0) {
                same("DEL", key);
            }
        }
        check();
    }

    /** A stand-in collection value: the list type is not implemented yet, but its WRONGTYPE paths are. */
    private record FakeList() implements TypedValue {
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
            return 16;
        }

        @Override
        public TypedValue copy() {
            return this;
        }

        @Override
        public long size() {
            return 1;
        }
    }

    /** Makes {@code key} a list on both servers (RPUSH on Redis, an injected value on Spinel). */
    private static void makeList(String key) throws IOException {
        toRedis.call("DEL", key);
        toRedis.call("RPUSH", key, "element");
        byte[] k = key.getBytes(StandardCharsets.ISO_8859_1);
        int h = KeyHash.hash(k, 0, k.length);
        Segment seg = spinel.engine().keyspace().db(0).segment(h);
        seg.lock();
        try {
            seg.put(k, h, new FakeList(), -1);
        } finally {
            seg.unlock();
        }
    }

    @Test
    void wrongTypeRepliesMatchRedis() throws IOException {
        String[][] commands = {
                {"GET", "l"}, {"GETSET", "l", "v"}, {"GETDEL", "l"}, {"GETEX", "l"}, {"GETEX", "l", "EX", "10"},
                {"GETEX", "l", "EX", "abc"}, {"GETEX", "l", "FOO"}, {"SET", "l", "v", "GET"},
                {"SET", "l", "v", "GET", "EX", "0"}, {"SET", "l", "v", "NX", "GET"}, {"SET", "l", "v", "XX", "GET"},
                {"APPEND", "l", "x"}, {"SETRANGE", "l", "0", "x"}, {"SETRANGE", "l", "0", ""},
                {"SETRANGE", "l", "-1", "x"}, {"GETRANGE", "l", "0", "-1"}, {"GETRANGE", "l", "a", "1"},
                {"SUBSTR", "l", "0", "1"}, {"STRLEN", "l"}, {"INCR", "l"}, {"DECR", "l"}, {"INCRBY", "l", "2"},
                {"INCRBY", "l", "x"}, {"DECRBY", "l", "2"}, {"INCRBYFLOAT", "l", "1.5"}, {"INCRBYFLOAT", "l", "x"},
                {"MGET", "s", "l", "nokey"}, {"LCS", "l", "s"}, {"LCS", "s", "l"}, {"LCS", "l", "l", "FOO"},
                {"SETNX", "l", "v"}, {"SET", "l", "v", "NX"}, {"MSETNX", "x", "1", "l", "2"}, {"MGET", "x"},
        };
        same("SET", "s", "string");
        for (String[] c : commands) {
            makeList("l");
            same(c);
        }
        // Commands that overwrite whatever type was there
        String[][] overwrite = {{"SET", "l", "v"}, {"SET", "l", "v", "XX"}, {"MSET", "l", "v"}, {"SETEX", "l", "10", "v"},
                {"PSETEX", "l", "10000", "v"}, {"SET", "l", "v", "KEEPTTL"}};
        for (String[] c : overwrite) {
            makeList("l");
            same(c);
            same("GET", "l");
        }
        check();
    }

    @Test
    void protoMaxBulkLenLimits() throws IOException {
        int limit = 1024 * 1024;
        same("SETRANGE", "s", Integer.toString(limit - 1), "x");
        same("STRLEN", "s");
        same("SETRANGE", "s", Integer.toString(limit - 1), "xy");
        same("SETRANGE", "s", Integer.toString(limit), "x");
        same("SETRANGE", "s", Integer.toString(limit), "");
        same("APPEND", "s", "z");
        same("SETRANGE", "new", Integer.toString(limit), "x");
        same("SETRANGE", "new", Integer.toString(limit - 2), "xy");
        same("APPEND", "new", "");
        same("STRLEN", "new");
        // LCS's table of (alen+1)*(blen+1) ints must fit the limit too: 511x511 fits, 512x512 does not.
        same("SET", "la", "a".repeat(511));
        same("SET", "lb", "ab".repeat(255) + "b");
        same("LCS", "la", "lb", "LEN");
        same("SET", "la", "a".repeat(512));
        same("SET", "lb", "a".repeat(512));
        same("LCS", "la", "lb", "LEN");
        same("LCS", "la", "lb");
        check();
        assertEquals(limit, Integer.parseInt(toSpinel.callString("STRLEN", "s").substring(1).strip()));
    }
}
