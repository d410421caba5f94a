package dev.spinel.server.diff;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Thousands of seeded random set and sorted-set commands (deterministic ones only) sent to Spinel and to
 * a real redis-server, replies compared byte for byte; replies of hashtable-encoded sets, whose order is
 * Redis's dict order, are compared as sorted multisets. Low encoding thresholds on both servers make the
 * intset/hashtable and listpack/skiplist conversions happen often. A failure names the seed and the step.
 */
class SetZSetRandomizedDiffTest {
    private static final String[] LIMITS = {"set-max-intset-entries", "6", "zset-max-listpack-entries", "6",
            "zset-max-listpack-value", "10"};
    private static RedisServerProcess redis;
    private static SpinelServer spinel;

    @BeforeAll
    static void start() {
        String[] redisArgs = new String[LIMITS.length];
        ServerConfig cfg = ServerConfig.defaults().with("port", "0");
        for (int i = 0; i < LIMITS.length; i += 2) {
            redisArgs[i] = "--" + LIMITS[i];
            redisArgs[i + 1] = LIMITS[i + 1];
            cfg.with(LIMITS[i], LIMITS[i + 1]);
        }
        redis = RedisServerProcess.start(redisArgs);
        spinel = SpinelServer.start(cfg);
    }

    @AfterAll
    static void stop() {
        if (spinel != null) {
            spinel.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    void randomSetAndZSetCommands() throws IOException {
        long seed = Long.getLong("random.seed", 20261123L);
        int steps = Integer.getInteger("random.steps", 6000);
        Random rnd = new Random(seed);
        try (RawClient a = new RawClient(spinel.port()); RawClient b = new RawClient(redis.port())) {
            for (int step = 0; step < steps; step++) {
                Cmd c = next(rnd);
                byte[] ra = a.call(c.args);
                byte[] rb = b.call(c.args);
                String sa = c.unordered ? sortedElements(ra) : str(ra);
                String sb = c.unordered ? sortedElements(rb) : str(rb);
                assertEquals(sb, sa, "seed " + seed + " step " + step + ": " + String.join(" ", c.args));
            }
        }
    }

    private record Cmd(String[] args, boolean unordered) {
    }

    private static final String[] MEMBERS = {"1", "2", "3", "10", "-5", "007", "a", "b", "c", "dd", "e",
            "longmember-over-ten", "x y", ""};
    private static final String[] SCORES = {"0", "1", "2", "-1", "1.5", "-2.5", "100", "inf", "-inf", "0.5", "3"};
    private static final String[] SKEYS = {"s1", "s2", "s3", "s4", "zz1", "str"};
    private static final String[] ZKEYS = {"z1", "z2", "z3", "s1", "str"};
    private static final String[] LKEYS = {"l1", "l2"};
    private static final String[] LEX = {"-", "+", "[a", "(a", "[c", "(dd", "[e", "[", "(", "[1", "(10"};
    private static final String[] RANGE = {"-inf", "+inf", "0", "(0", "1", "(1.5", "2", "-2.5", "(100", "3"};

    private static String pick(Random r, String[] from) {
        return from[r.nextInt(from.length)];
    }

    private static String idx(Random r) {
        return Integer.toString(r.nextInt(13) - 6);
    }

    private static Cmd next(Random r) {
        List<String> a = new ArrayList<>();
        boolean unordered = false;
        int kind = r.nextInt(44);
        switch (kind) {
            case 0, 1, 2 -> {
                a.add("SADD");
                a.add(pick(r, SKEYS));
                int n = 1 + r.nextInt(4);
                for (int i = 0; i < n; i++) {
                    a.add(r.nextInt(3) == 0 ? pick(r, MEMBERS) : Integer.toString(r.nextInt(20)));
                }
            }
            case 3 -> {
                a.add("SREM");
                a.add(pick(r, SKEYS));
                a.add(pick(r, MEMBERS));
                a.add(Integer.toString(r.nextInt(20)));
            }
            case 4 -> {
                a.addAll(List.of("SISMEMBER", pick(r, SKEYS), r.nextBoolean() ? pick(r, MEMBERS) : Integer.toString(r.nextInt(20))));
            }
            case 5 -> a.addAll(List.of("SMISMEMBER", pick(r, SKEYS), pick(r, MEMBERS), Integer.toString(r.nextInt(20))));
            case 6 -> a.addAll(List.of("SCARD", pick(r, SKEYS)));
            case 7 -> {
                a.addAll(List.of("SMEMBERS", pick(r, SKEYS)));
                unordered = true;
            }
            case 8 -> a.addAll(List.of("SMOVE", pick(r, SKEYS), pick(r, SKEYS), Integer.toString(r.nextInt(20))));
            case 9, 10, 11 -> {
                String[] ops = {"SINTER", "SUNION", "SDIFF"};
                a.add(ops[kind - 9]);
                int n = 1 + r.nextInt(3);
                for (int i = 0; i < n; i++) {
                    a.add(pick(r, SKEYS));
                }
                unordered = true;
            }
            case 12 -> {
                String[] ops = {"SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"};
                a.add(ops[r.nextInt(3)]);
                a.add(pick(r, SKEYS));
                int n = 1 + r.nextInt(3);
                for (int i = 0; i < n; i++) {
                    a.add(pick(r, SKEYS));
                }
            }
            case 13 -> {
                a.addAll(List.of("SINTERCARD", "2", pick(r, SKEYS), pick(r, SKEYS)));
                if (r.nextBoolean()) {
                    a.addAll(List.of("LIMIT", Integer.toString(r.nextInt(4))));
                }
            }
            case 14, 15, 16, 17 -> {
                a.add("ZADD");
                a.add(pick(r, ZKEYS));
                String[] flags = {"NX", "XX", "GT", "LT", "CH", "INCR"};
                for (String f : flags) {
                    if (r.nextInt(6) == 0) {
                        a.add(f);
                    }
                }
                int n = 1 + r.nextInt(3);
                for (int i = 0; i < n; i++) {
                    a.add(pick(r, SCORES));
                    a.add(pick(r, MEMBERS));
                }
            }
            case 18 -> a.addAll(List.of("ZINCRBY", pick(r, ZKEYS), pick(r, SCORES), pick(r, MEMBERS)));
            case 19 -> a.addAll(List.of("ZREM", pick(r, ZKEYS), pick(r, MEMBERS), pick(r, MEMBERS)));
            case 20 -> a.addAll(List.of("ZSCORE", pick(r, ZKEYS), pick(r, MEMBERS)));
            case 21 -> a.addAll(List.of("ZMSCORE", pick(r, ZKEYS), pick(r, MEMBERS), pick(r, MEMBERS)));
            case 22 -> a.addAll(List.of(r.nextBoolean() ? "ZRANK" : "ZREVRANK", pick(r, ZKEYS), pick(r, MEMBERS)));
            case 23 -> a.addAll(List.of("ZCARD", pick(r, ZKEYS)));
            case 24 -> a.addAll(List.of("ZCOUNT", pick(r, ZKEYS), pick(r, RANGE), pick(r, RANGE)));
            case 25, 26 -> {
                a.addAll(List.of("ZRANGE", pick(r, ZKEYS), idx(r), idx(r)));
                if (r.nextBoolean()) {
                    a.add("REV");
                }
                if (r.nextBoolean()) {
                    a.add("WITHSCORES");
                }
            }
            case 27, 28 -> {
                a.addAll(List.of("ZRANGE", pick(r, ZKEYS), pick(r, RANGE), pick(r, RANGE), "BYSCORE"));
                if (r.nextBoolean()) {
                    a.add("REV");
                }
                if (r.nextBoolean()) {
                    a.addAll(List.of("LIMIT", Integer.toString(r.nextInt(4) - 1), Integer.toString(r.nextInt(5) - 1)));
                }
                if (r.nextBoolean()) {
                    a.add("WITHSCORES");
                }
            }
            case 29 -> {
                String[] ops = {"ZRANGEBYSCORE", "ZREVRANGEBYSCORE"};
                a.addAll(List.of(ops[r.nextInt(2)], pick(r, ZKEYS), pick(r, RANGE), pick(r, RANGE), "WITHSCORES"));
            }
            case 30 -> {
                a.addAll(List.of("ZADD", pick(r, LKEYS), "0", pick(r, MEMBERS), "0", pick(r, MEMBERS)));
            }
            case 31, 32 -> {
                String[] ops = {"ZRANGEBYLEX", "ZREVRANGEBYLEX", "ZLEXCOUNT", "ZREMRANGEBYLEX"};
                a.addAll(List.of(ops[r.nextInt(4)], pick(r, LKEYS), pick(r, LEX), pick(r, LEX)));
                if (a.get(0).endsWith("BYLEX") && !a.get(0).startsWith("ZREM") && r.nextBoolean()) {
                    a.addAll(List.of("LIMIT", Integer.toString(r.nextInt(3)), Integer.toString(r.nextInt(4) - 1)));
                }
            }
            case 33 -> a.addAll(List.of("ZREMRANGEBYRANK", pick(r, ZKEYS), idx(r), idx(r)));
            case 34 -> a.addAll(List.of("ZREMRANGEBYSCORE", pick(r, ZKEYS), pick(r, RANGE), pick(r, RANGE)));
            case 35 -> {
                a.addAll(List.of(r.nextBoolean() ? "ZPOPMIN" : "ZPOPMAX", pick(r, ZKEYS)));
                if (r.nextBoolean()) {
                    a.add(Integer.toString(r.nextInt(4)));
                }
            }
            case 36 -> {
                a.addAll(List.of("ZMPOP", "2", pick(r, ZKEYS), pick(r, ZKEYS), r.nextBoolean() ? "MIN" : "MAX"));
                if (r.nextBoolean()) {
                    a.addAll(List.of("COUNT", Integer.toString(1 + r.nextInt(3))));
                }
            }
            case 37, 38, 39 -> {
                String[] ops = {"ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE", "ZUNION", "ZINTER", "ZDIFF"};
                String op = ops[r.nextInt(6)];
                a.add(op);
                boolean store = op.endsWith("STORE");
                if (store) {
                    a.add(pick(r, ZKEYS));
                }
                int n = 1 + r.nextInt(3);
                a.add(Integer.toString(n));
                for (int i = 0; i < n; i++) {
                    a.add(pick(r, ZKEYS));
                }
                if (!op.startsWith("ZDIFF") && r.nextBoolean()) {
                    a.add("WEIGHTS");
                    String[] w = {"1", "2", "0.5", "-1", "0"};
                    for (int i = 0; i < n; i++) {
                        a.add(pick(r, w));
                    }
                }
                if (!op.startsWith("ZDIFF") && r.nextBoolean()) {
                    a.addAll(List.of("AGGREGATE", pick(r, new String[] {"SUM", "MIN", "MAX"})));
                }
                if (!store && r.nextBoolean()) {
                    a.add("WITHSCORES");
                }
            }
            case 40 -> a.addAll(List.of("ZINTERCARD", "2", pick(r, ZKEYS), pick(r, ZKEYS)));
            case 41 -> {
                a.addAll(List.of("ZRANGESTORE", pick(r, ZKEYS), pick(r, ZKEYS), idx(r), idx(r)));
                if (r.nextBoolean()) {
                    a.add("REV");
                }
            }
            case 42 -> a.addAll(List.of("ZRANDMEMBER", pick(r, ZKEYS), "100", "WITHSCORES"));
            default -> a.addAll(List.of("SET", "str", "v"));
        }
        return new Cmd(a.toArray(new String[0]), unordered);
    }

    private static String str(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    /** The elements of a flat array reply of bulk strings, sorted; other replies as they are. */
    private static String sortedElements(byte[] reply) {
        String s = str(reply);
        if (s.charAt(0) != '*' && s.charAt(0) != '~') {
            return s;
        }
        String[] lines = s.split("\r\n", -1);
        List<String> items = new ArrayList<>();
        for (int i = 1; i + 1 < lines.length; i += 2) {
            items.add(lines[i + 1]);
        }
        String[] sorted = items.toArray(new String[0]);
        Arrays.sort(sorted);
        return lines[0] + " " + String.join("|", sorted);
    }
}
