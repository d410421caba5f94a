package dev.spinel.server.diff;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;

/**
 * Generates random commands for {@link CommandSequenceFuzzTest}: strings, keys and expiry, lists, hashes,
 * sets, sorted sets, MULTI/EXEC/WATCH, wrong arity, wrong types and random bytes as arguments, over a handful
 * of shared keys so that types collide. Each command carries how its reply may be compared: Redis's own
 * nondeterminism (dict order, random picks, the clock) is compared structurally, never "fixed".
 *
 * <p>Expiry times are either immediate (0, negative, a past timestamp) or far away, so no key expires
 * while an episode runs. Not thread-safe: one generator per sequence.
 */
final class FuzzCommands {
    /** How a command's replies are compared. */
    enum Compare {
        /** byte for byte */
        EXACT,
        /** the elements of an aggregate as a sorted multiset (hashtable order is Redis's dict order) */
        UNORDERED,
        /** reply type and element count only (random picks) */
        SHAPE,
        /** integers within a tolerance when both are non-negative (the clock moves between the two servers) */
        CLOCK
    }

    record Cmd(List<byte[]> args, Compare compare) {
        String name() {
            return new String(args.get(0), StandardCharsets.ISO_8859_1).toUpperCase(Locale.ROOT);
        }

        /** The command as a redis-cli line, with non-printable bytes escaped. */
        String show() {
            StringBuilder b = new StringBuilder();
            for (byte[] a : args) {
                if (!b.isEmpty()) {
                    b.append(' ');
                }
                b.append('"');
                for (byte x : a) {
                    int c = x & 0xff;
                    if (c == '"' || c == '\\') {
                        b.append('\\').append((char) c);
                    } else if (c >= 0x20 && c < 0x7f) {
                        b.append((char) c);
                    } else {
                        b.append(String.format("\\x%02x", c));
                    }
                }
                b.append('"');
            }
            return b.toString();
        }
    }

    private static final String[] NUMBERS = {"0", "1", "-1", "3", "7", "10", "100", "-100", "abc", "1.5", "",
            "9223372036854775807", "-9223372036854775808", "9223372036854775808", "99999999999999999999", " 1", "+2"};
    private static final String[] SCORES = {"0", "1", "-2.5", "3", "1e3", "inf", "-inf", "+inf", "nan", "abc", "0x10",
            "1.7976931348623157e308", "-0", "2.5", "17", "(1", "(-inf", "[a", "-", "+"};

    private final Random r;
    private boolean inMulti;

    FuzzCommands(Random r) {
        this.r = r;
    }

    Cmd next() {
        Cmd c = pick();
        if (r.nextInt(25) == 0) {
            c = new Cmd(mutateArity(c.args), c.compare);
        } else if (r.nextInt(40) == 0) {
            List<byte[]> a = new ArrayList<>(c.args);
            a.set(r.nextInt(a.size()), randomBytes());
            c = new Cmd(a, c.compare);
        }
        if (inMulti && c.compare != Compare.EXACT) {
            c = new Cmd(c.args, Compare.EXACT);
        }
        trackMulti(c);
        return c;
    }

    /** Inside MULTI only commands whose replies are deterministic are generated (EXEC's reply is compared whole). */
    private Cmd pick() {
        while (true) {
            Cmd c = candidate();
            if (!inMulti || c.compare == Compare.EXACT) {
                return c;
            }
        }
    }

    /** MULTI, EXEC and DISCARD change the state only with their exact arity (otherwise they are arity errors). */
    private void trackMulti(Cmd c) {
        if (c.args.size() != 1) {
            return;
        }
        switch (c.name()) {
            case "MULTI" -> inMulti = true;
            case "EXEC", "DISCARD" -> inMulti = false;
            default -> { }
        }
    }

    private Cmd candidate() {
        return switch (r.nextInt(9)) {
            case 0, 1 -> strings();
            case 2 -> keys();
            case 3 -> lists();
            case 4 -> hashes();
            case 5 -> sets();
            case 6 -> zsets();
            case 7 -> transactions();
            default -> r.nextBoolean() ? strings() : errors();
        };
    }

    private Cmd strings() {
        return switch (r.nextInt(20)) {
            case 0, 1 -> {
                List<String> a = new ArrayList<>(List.of("SET", key(), ""));
                List<byte[]> args = words(a);
                args.set(2, value());
                for (int n = r.nextInt(3); n > 0; n--) {
                    switch (r.nextInt(7)) {
                        case 0 -> args.addAll(words(List.of("EX", expirySeconds())));
                        case 1 -> args.addAll(words(List.of("PX", expiryMillis())));
                        case 2 -> args.addAll(words(List.of("NX")));
                        case 3 -> args.addAll(words(List.of("XX")));
                        case 4 -> args.addAll(words(List.of("GET")));
                        case 5 -> args.addAll(words(List.of("KEEPTTL")));
                        default -> args.addAll(words(List.of("EXAT", "4102444800")));
                    }
                }
                yield exact(args);
            }
            case 2 -> exact("GET", key());
            case 3 -> exactWithValue("GETSET", key());
            case 4 -> exact("GETDEL", key());
            case 5 -> exactWithValue("APPEND", key());
            case 6 -> exact("STRLEN", key());
            case 7 -> exact(pick("INCR", "DECR"), key());
            case 8 -> exact(pick("INCRBY", "DECRBY"), key(), number());
            case 9 -> exact("INCRBYFLOAT", key(), score());
            case 10 -> exactWithValue("SETNX", key());
            case 11 -> {
                List<byte[]> a = words(List.of(pick("MSET", "MSETNX")));
                for (int n = 1 + r.nextInt(3); n > 0; n--) {
                    a.add(bytes(key()));
                    a.add(value());
                }
                yield exact(a);
            }
            case 12 -> exact("MGET", key(), key(), key());
            case 13 -> {
                List<byte[]> a = words(List.of("SETRANGE", key(), Integer.toString(r.nextInt(40) - 2)));
                a.add(value());
                yield exact(a);
            }
            case 14 -> exact(pick("GETRANGE", "SUBSTR"), key(), index(), index());
            case 15 -> switch (r.nextInt(4)) {
                case 0 -> exact("GETEX", key(), "PERSIST");
                case 1 -> exact("GETEX", key(), "EX", expirySeconds());
                case 2 -> exact("GETEX", key(), "PXAT", "4102444800000");
                default -> exact("GETEX", key());
            };
            case 16 -> {
                List<byte[]> a = words(List.of(pick("SETEX", "PSETEX"), key(), pick("1000000", "0", "-1", "abc")));
                a.add(value());
                yield exact(a);
            }
            case 17 -> exact("LCS", key(), key(), pick("LEN", "IDX", "IDX"));
            default -> exact("GET", key());
        };
    }

    private Cmd keys() {
        return switch (r.nextInt(18)) {
            case 0, 1 -> exact(pick("DEL", "UNLINK"), key(), key());
            case 2 -> exact(pick("EXISTS", "TOUCH"), key(), key());
            case 3 -> exact("TYPE", key());
            case 4 -> exact(pick("RENAME", "RENAMENX"), key(), key());
            case 5 -> r.nextBoolean() ? exact("COPY", key(), key()) : exact("COPY", key(), key(), "REPLACE");
            case 6 -> {
                List<String> a = new ArrayList<>(List.of(pick("EXPIRE", "PEXPIRE"), key(), ""));
                a.set(2, a.get(0).equals("EXPIRE") ? expirySeconds() : expiryMillis());
                if (r.nextInt(3) == 0) {
                    a.add(pick("NX", "XX", "GT", "LT", "FOO"));
                }
                yield exact(words(a));
            }
            case 7 -> exact(pick("EXPIREAT", "PEXPIREAT"), key(), pick("1", "1000000000", "4102444800", "4102444800000", "-1"));
            case 8 -> exact("PERSIST", key());
            case 9 -> new Cmd(words(List.of(pick("TTL", "PTTL", "EXPIRETIME", "PEXPIRETIME"), key())), Compare.CLOCK);
            case 10 -> new Cmd(words(List.of("KEYS", pick("*", "k*", "k[0-2]", "?1", "*x*"))), Compare.UNORDERED);
            case 11 -> exact("DBSIZE");
            case 12 -> exact("OBJECT", "ENCODING", key());
            case 13 -> new Cmd(words(List.of("RANDOMKEY")), Compare.SHAPE);
            case 14 -> exact("SELECT", pick("0", "0", "1", "16", "abc"));
            case 15 -> r.nextBoolean() ? exact("SORT", key(), "ALPHA") : exact("SORT", key(), "LIMIT", "0", "3", "DESC");
            case 16 -> exact("MOVE", key(), pick("0", "1"));
            default -> exact("EXISTS", key());
        };
    }

    private Cmd lists() {
        return switch (r.nextInt(17)) {
            case 0, 1, 2 -> variadic(pick("LPUSH", "RPUSH", "LPUSHX", "RPUSHX"), key(), 1 + r.nextInt(4));
            case 3 -> r.nextBoolean() ? exact(pick("LPOP", "RPOP"), key()) : exact(pick("LPOP", "RPOP"), key(), number());
            case 4 -> exact("LLEN", key());
            case 5, 6 -> exact("LRANGE", key(), index(), index());
            case 7 -> exact("LINDEX", key(), index());
            case 8 -> withValue(List.of("LSET", key(), index()));
            case 9 -> {
                List<byte[]> a = words(List.of("LINSERT", key(), pick("BEFORE", "AFTER", "MIDDLE")));
                a.add(value());
                a.add(value());
                yield exact(a);
            }
            case 10 -> withValue(List.of("LREM", key(), Integer.toString(r.nextInt(7) - 3)));
            case 11 -> exact("LTRIM", key(), index(), index());
            case 12 -> {
                List<byte[]> a = words(List.of("LPOS", key()));
                a.add(value());
                if (r.nextBoolean()) {
                    a.addAll(words(List.of(pick("RANK", "COUNT", "MAXLEN"), number())));
                }
                yield exact(a);
            }
            case 13 -> exact("LMOVE", key(), key(), pick("LEFT", "RIGHT"), pick("LEFT", "RIGHT", "UP"));
            case 14 -> exact("RPOPLPUSH", key(), key());
            case 15 -> exact("LMPOP", pick("1", "2", "0"), key(), key(), pick("LEFT", "RIGHT"), "COUNT", number());
            default -> exact("LLEN", key());
        };
    }

    private Cmd hashes() {
        return switch (r.nextInt(15)) {
            case 0, 1, 2 -> {
                List<byte[]> a = words(List.of(pick("HSET", "HMSET"), key()));
                for (int n = 1 + r.nextInt(3); n > 0; n--) {
                    a.add(field());
                    a.add(value());
                }
                yield exact(a);
            }
            case 3 -> {
                List<byte[]> a = words(List.of("HSETNX", key()));
                a.add(field());
                a.add(value());
                yield exact(a);
            }
            case 4 -> exact(List.of(bytes("HGET"), bytes(key()), field()));
            case 5 -> exact(List.of(bytes("HMGET"), bytes(key()), field(), field()));
            case 6 -> exact(List.of(bytes("HDEL"), bytes(key()), field(), field()));
            case 7 -> exact("HLEN", key());
            case 8 -> exact(List.of(bytes("HEXISTS"), bytes(key()), field()));
            case 9 -> exact(List.of(bytes("HINCRBY"), bytes(key()), field(), bytes(number())));
            case 10 -> exact(List.of(bytes("HINCRBYFLOAT"), bytes(key()), field(), bytes(score())));
            case 11 -> exact(List.of(bytes("HSTRLEN"), bytes(key()), field()));
            case 12, 13 -> new Cmd(words(List.of(pick("HGETALL", "HKEYS", "HVALS"), key())), Compare.UNORDERED);
            default -> new Cmd(words(r.nextBoolean() ? List.of("HRANDFIELD", key()) : List.of("HRANDFIELD", key(), number())),
                    Compare.SHAPE);
        };
    }

    private Cmd sets() {
        return switch (r.nextInt(14)) {
            case 0, 1, 2 -> variadic("SADD", key(), 1 + r.nextInt(4));
            case 3 -> variadic("SREM", key(), 1 + r.nextInt(2));
            case 4 -> exact("SCARD", key());
            case 5 -> withValue(List.of("SISMEMBER", key()));
            case 6 -> variadic("SMISMEMBER", key(), 2);
            case 7, 8 -> new Cmd(words(List.of(pick("SMEMBERS", "SINTER", "SUNION", "SDIFF"), key(), key())).subList(0, 2 + r.nextInt(2)),
                    Compare.UNORDERED);
            case 9 -> exact(pick("SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"), key(), key(), key());
            case 10 -> withValue(List.of("SMOVE", key(), key()));
            case 11 -> exact("SINTERCARD", pick("2", "1", "0"), key(), key());
            case 12 -> new Cmd(words(r.nextBoolean() ? List.of("SRANDMEMBER", key()) : List.of("SRANDMEMBER", key(), number())),
                    Compare.SHAPE);
            default -> exact("SCARD", key());
        };
    }

    private Cmd zsets() {
        return switch (r.nextInt(19)) {
            case 0, 1, 2 -> {
                List<byte[]> a = words(List.of("ZADD", key()));
                for (int n = r.nextInt(3); n > 0; n--) {
                    a.add(bytes(pick("NX", "XX", "GT", "LT", "CH", "INCR")));
                }
                for (int n = 1 + r.nextInt(3); n > 0; n--) {
                    a.add(bytes(score()));
                    a.add(value());
                }
                yield exact(a);
            }
            case 3 -> variadic("ZREM", key(), 1 + r.nextInt(2));
            case 4 -> exact("ZCARD", key());
            case 5 -> withValue(List.of(pick("ZSCORE", "ZRANK", "ZREVRANK"), key()));
            case 6 -> variadic("ZMSCORE", key(), 2);
            case 7 -> withValue(List.of("ZINCRBY", key(), score()));
            case 8, 9 -> {
                List<String> a = new ArrayList<>(List.of(pick("ZRANGE", "ZREVRANGE"), key(), index(), index()));
                if (r.nextBoolean()) {
                    a.add("WITHSCORES");
                }
                yield exact(words(a));
            }
            case 10 -> {
                List<String> a = new ArrayList<>(List.of(pick("ZRANGEBYSCORE", "ZREVRANGEBYSCORE", "ZCOUNT"), key(), score(), score()));
                if (r.nextBoolean() && !a.get(0).equals("ZCOUNT")) {
                    a.addAll(List.of("LIMIT", index(), index()));
                }
                yield exact(words(a));
            }
            // Lex ranges are specified only when all scores are equal: they run on their own key, where they are
            case 11 -> r.nextInt(3) == 0 ? withValue(List.of("ZADD", "lex", "0"))
                    : exact(pick("ZRANGEBYLEX", "ZLEXCOUNT", "ZREMRANGEBYLEX"), "lex", pick("-", "[a", "(v1", "[v5", "x"),
                    pick("+", "[z", "(v9", "[v2", "(", "[x"));
            case 12 -> r.nextBoolean() ? exact(pick("ZPOPMIN", "ZPOPMAX"), key()) : exact(pick("ZPOPMIN", "ZPOPMAX"), key(), number());
            case 13 -> {
                List<String> a = new ArrayList<>(List.of(pick("ZUNIONSTORE", "ZINTERSTORE", "ZDIFFSTORE"), key(), "2", key(), key()));
                if (r.nextBoolean() && !a.get(0).equals("ZDIFFSTORE")) {
                    a.addAll(List.of("AGGREGATE", pick("SUM", "MIN", "MAX", "AVG")));
                }
                yield exact(words(a));
            }
            case 14 -> exact("ZREMRANGEBYRANK", key(), index(), index());
            case 15 -> exact("ZREMRANGEBYSCORE", key(), score(), score());
            case 16 -> exact("ZRANGE", key(), score(), score(), "BYSCORE", "REV");
            case 17 -> exact(pick("ZUNION", "ZINTER", "ZDIFF"), "2", key(), key(), "WITHSCORES");
            default -> exact("ZCARD", key());
        };
    }

    private Cmd transactions() {
        return switch (r.nextInt(8)) {
            case 0, 1 -> exact("MULTI");
            case 2, 3 -> exact("EXEC");
            case 4 -> exact("DISCARD");
            case 5 -> exact("WATCH", key(), key());
            case 6 -> exact("UNWATCH");
            default -> inMulti ? exact("EXEC") : exact("MULTI");
        };
    }

    private Cmd errors() {
        return switch (r.nextInt(4)) {
            case 0 -> exact(List.of(randomBytes(), value()));
            case 1 -> exact(pick("GET", "SET", "HSET", "ZADD", "LPUSH", "EXPIRE", "OBJECT", "MULTI", "EXEC"));
            case 2 -> exact("ECHO", "a", "b");
            default -> exact(List.of(bytes(pick("SET", "GET", "SADD", "HGET")), randomBytes(), randomBytes()));
        };
    }

    /** Drops or adds an argument: arity errors (and, inside MULTI, EXECABORT). */
    private List<byte[]> mutateArity(List<byte[]> args) {
        List<byte[]> a = new ArrayList<>(args);
        if (a.size() > 1 && r.nextBoolean()) {
            a.remove(a.size() - 1);
        } else {
            a.add(value());
        }
        return a;
    }

    private Cmd variadic(String name, String key, int n) {
        List<byte[]> a = words(List.of(name, key));
        for (int i = 0; i < n; i++) {
            a.add(value());
        }
        return exact(a);
    }

    private Cmd withValue(List<String> prefix) {
        List<byte[]> a = words(prefix);
        a.add(value());
        return exact(a);
    }

    private Cmd exactWithValue(String name, String key) {
        return withValue(List.of(name, key));
    }

    private String key() {
        return r.nextInt(30) == 0 ? pick("", "{k}0", "k0 ") : "k" + r.nextInt(6);
    }

    /** Small members repeat so sets and hashes see duplicates; a few are long or binary to force encoding changes. */
    private byte[] value() {
        return switch (r.nextInt(12)) {
            case 0 -> bytes(Integer.toString(r.nextInt(20) - 5));
            case 1 -> bytes(pick(NUMBERS));
            case 2 -> bytes(Double.toString((r.nextInt(2000) - 1000) / 8.0));
            case 3 -> bytes("x".repeat(60 + r.nextInt(20)));
            case 4 -> randomBytes();
            case 5 -> bytes("");
            default -> bytes("v" + r.nextInt(10));
        };
    }

    private byte[] field() {
        return r.nextInt(15) == 0 ? value() : bytes("f" + r.nextInt(8));
    }

    private byte[] randomBytes() {
        byte[] b = new byte[r.nextInt(9)];
        r.nextBytes(b);
        return b;
    }

    private String number() {
        return r.nextInt(3) == 0 ? pick(NUMBERS) : Integer.toString(r.nextInt(8));
    }

    private String score() {
        return r.nextInt(3) == 0 ? pick(SCORES) : Integer.toString(r.nextInt(10) - 3);
    }

    private String index() {
        return r.nextInt(15) == 0 ? pick(NUMBERS) : Integer.toString(r.nextInt(16) - 8);
    }

    /** Now, far away, or invalid: never a time an episode could reach while running. */
    private String expirySeconds() {
        return pick("0", "-5", "100000", "1000000", "abc", "9223372036854775807", "4611686018427387");
    }

    private String expiryMillis() {
        return pick("0", "-5", "100000000", "abc", "9223372036854775807", "9223372036854775");
    }

    private String pick(String... choices) {
        return choices[r.nextInt(choices.length)];
    }

    private Cmd exact(String... args) {
        return exact(words(List.of(args)));
    }

    private static Cmd exact(List<byte[]> args) {
        return new Cmd(args, Compare.EXACT);
    }

    private static List<byte[]> words(List<String> words) {
        List<byte[]> a = new ArrayList<>(words.size() + 4);
        for (String w : words) {
            a.add(bytes(w));
        }
        return a;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }
}
