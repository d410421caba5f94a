package dev.spinel.server.diff;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Seeded random list and hash commands sent to Spinel and to redis-server; every reply must be
 * identical byte for byte. Hashes rh1/rh2 stay within the listpack limits (field order is Redis's
 * insertion order on both sides); rh3 gets long values and turns into a hashtable, so its HGETALL,
 * HKEYS and HVALS are compared as multisets. Lists get occasional large elements so both list
 * layouts are used.
 * The seed is printed on failure; {@code -Drandom.seed=N} replays one.
 */
class RandomCollectionsDiffTest {
    private static final int OPS = Integer.getInteger("random.ops", 6000);
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();


    @Test
    void randomListAndHashCommandsAnswerLikeRedis() throws Exception {
        long seed = Long.getLong("random.seed", System.nanoTime());
        Random rnd = new Random(seed);
        try (RawClient s = new RawClient(SERVERS.spinel().port()); RawClient r = new RawClient(SERVERS.redis().port())) {
            List<String> keys = List.of("rl1", "rl2", "rl3", "rh1", "rh2", "rh3", "rstr");
            for (String k : keys) {
                s.call("DEL", k);
                r.call("DEL", k);
            }
            s.call("SET", "rstr", "x");
            r.call("SET", "rstr", "x");
            for (int i = 0; i < OPS; i++) {
                List<String> cmd = next(rnd);
                List<byte[]> args = cmd.stream().map(a -> a.getBytes(StandardCharsets.ISO_8859_1)).toList();
                byte[] a = s.call(args);
                byte[] b = r.call(args);
                // rh3 gets long values, so it becomes a hashtable whose order is the server's own
                boolean unordered = cmd.get(1).equals("rh3") && List.of("HGETALL", "HKEYS", "HVALS").contains(cmd.get(0));
                boolean same = unordered ? Replies.sortedElements(a).equals(Replies.sortedElements(b))
                        : Arrays.equals(a, b);
                if (!same) {
                    fail("seed " + seed + ", op " + i + " " + cmd + "\n spinel: " + show(a) + "\n redis:  " + show(b));
                }
            }
        }
    }

    private static String show(byte[] b) {
        String s = new String(b, StandardCharsets.ISO_8859_1).replace("\r\n", "\\r\\n");
        return s.length() > 400 ? s.substring(0, 400) + "..." : s;
    }

    private static String listKey(Random rnd) {
        int p = rnd.nextInt(20);
        return p == 0 ? "rstr" : p == 1 ? "rh1" : "rl" + (1 + rnd.nextInt(3));
    }

    private static String hashKey(Random rnd) {
        int p = rnd.nextInt(20);
        return p == 0 ? "rstr" : p == 1 ? "rl1" : p == 2 ? "rh3" : "rh" + (1 + rnd.nextInt(2));
    }

    private static String elem(Random rnd) {
        return rnd.nextInt(40) == 0 ? "big" + "x".repeat(300 + rnd.nextInt(600)) : "e" + rnd.nextInt(12);
    }

    private static String idx(Random rnd) {
        return Integer.toString(rnd.nextInt(30) - 15);
    }

    private static String field(Random rnd) {
        return "f" + rnd.nextInt(25);
    }

    private static String value(Random rnd) {
        return switch (rnd.nextInt(4)) {
            case 0 -> Integer.toString(rnd.nextInt(200) - 100);
            case 1 -> (rnd.nextInt(2000) - 1000) / 8.0 + "";
            default -> "v" + rnd.nextInt(1000);
        };
    }

    private static List<String> next(Random rnd) {
        List<String> c = new ArrayList<>();
        String side = rnd.nextBoolean() ? "LEFT" : "RIGHT";
        String side2 = rnd.nextBoolean() ? "LEFT" : "RIGHT";
        switch (rnd.nextInt(30)) {
            case 0, 1 -> { c.add(rnd.nextBoolean() ? "LPUSH" : "RPUSH"); c.add(listKey(rnd)); for (int n = 1 + rnd.nextInt(4); n > 0; n--) { c.add(elem(rnd)); } }
            case 2 -> { c.add(rnd.nextBoolean() ? "LPUSHX" : "RPUSHX"); c.add(listKey(rnd)); c.add(elem(rnd)); }
            case 3 -> { c.add(rnd.nextBoolean() ? "LPOP" : "RPOP"); c.add(listKey(rnd)); if (rnd.nextBoolean()) { c.add(Integer.toString(rnd.nextInt(5))); } }
            case 4 -> { c.add("LLEN"); c.add(listKey(rnd)); }
            case 5, 6 -> { c.add("LRANGE"); c.add(listKey(rnd)); c.add(idx(rnd)); c.add(idx(rnd)); }
            case 7 -> { c.add("LINDEX"); c.add(listKey(rnd)); c.add(idx(rnd)); }
            case 8 -> { c.add("LSET"); c.add(listKey(rnd)); c.add(idx(rnd)); c.add(elem(rnd)); }
            case 9 -> { c.add("LINSERT"); c.add(listKey(rnd)); c.add(rnd.nextBoolean() ? "BEFORE" : "AFTER"); c.add(elem(rnd)); c.add(elem(rnd)); }
            case 10 -> { c.add("LREM"); c.add(listKey(rnd)); c.add(Integer.toString(rnd.nextInt(7) - 3)); c.add(elem(rnd)); }
            case 11 -> { c.add("LTRIM"); c.add(listKey(rnd)); c.add(Integer.toString(rnd.nextInt(6) - 1)); c.add(Integer.toString(rnd.nextInt(40) - 3)); }
            case 12 -> {
                c.add("LPOS"); c.add(listKey(rnd)); c.add(elem(rnd));
                if (rnd.nextBoolean()) { c.add("RANK"); c.add(Integer.toString(rnd.nextBoolean() ? 1 + rnd.nextInt(3) : -1 - rnd.nextInt(3))); }
                if (rnd.nextBoolean()) { c.add("COUNT"); c.add(Integer.toString(rnd.nextInt(4))); }
                if (rnd.nextBoolean()) { c.add("MAXLEN"); c.add(Integer.toString(rnd.nextInt(10))); }
            }
            case 13 -> { c.add("LMOVE"); c.add(listKey(rnd)); c.add(listKey(rnd)); c.add(side); c.add(side2); }
            case 14 -> { c.add("RPOPLPUSH"); c.add(listKey(rnd)); c.add(listKey(rnd)); }
            case 15 -> { c.add("LMPOP"); c.add("2"); c.add(listKey(rnd)); c.add(listKey(rnd)); c.add(side); if (rnd.nextBoolean()) { c.add("COUNT"); c.add(Integer.toString(1 + rnd.nextInt(4))); } }
            case 16 -> { c.add(rnd.nextBoolean() ? "BLPOP" : "BRPOP"); c.add(listKey(rnd)); c.add(listKey(rnd)); c.add("0.01"); }
            case 17 -> { c.add("BLMOVE"); c.add(listKey(rnd)); c.add(listKey(rnd)); c.add(side); c.add(side2); c.add("0.01"); }
            case 18, 19 -> {
                String k = hashKey(rnd);
                c.add("HSET"); c.add(k);
                for (int n = 1 + rnd.nextInt(3); n > 0; n--) {
                    c.add(field(rnd));
                    c.add(k.equals("rh3") && rnd.nextInt(4) == 0 ? "long" + "y".repeat(70) : value(rnd));
                }
            }
            case 20 -> { c.add("HSETNX"); c.add(hashKey(rnd)); c.add(field(rnd)); c.add(value(rnd)); }
            case 21 -> { c.add(rnd.nextBoolean() ? "HGET" : "HEXISTS"); c.add(hashKey(rnd)); c.add(field(rnd)); }
            case 22 -> { c.add("HMGET"); c.add(hashKey(rnd)); c.add(field(rnd)); c.add(field(rnd)); }
            case 23 -> { c.add(switch (rnd.nextInt(4)) { case 0 -> "HGETALL"; case 1 -> "HKEYS"; case 2 -> "HVALS"; default -> "HLEN"; }); c.add(hashKey(rnd)); }
            case 24 -> { c.add("HDEL"); c.add(hashKey(rnd)); c.add(field(rnd)); c.add(field(rnd)); }
            case 25 -> { c.add("HINCRBY"); c.add(hashKey(rnd)); c.add(field(rnd)); c.add(Integer.toString(rnd.nextInt(100) - 50)); }
            case 26 -> { c.add("HINCRBYFLOAT"); c.add(hashKey(rnd)); c.add(field(rnd)); c.add(value(rnd)); }
            case 27 -> { c.add("HSTRLEN"); c.add(hashKey(rnd)); c.add(field(rnd)); }
            case 28 -> { c.add("HSCAN"); c.add("rh" + (1 + rnd.nextInt(2))); c.add("0"); if (rnd.nextBoolean()) { c.add("MATCH"); c.add("f1*"); } }
            default -> { c.add("HRANDFIELD"); c.add("rh" + (1 + rnd.nextInt(2))); c.add("100"); if (rnd.nextBoolean()) { c.add("WITHVALUES"); } }
        }
        return c;
    }
}
