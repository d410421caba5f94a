package dev.spinel.server.diff;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * Commands whose cost the client chooses, each with its worst input (docs/bounded-work.md lists them), sent
 * to Spinel and to redis-server: the replies must match byte for byte and Spinel must answer each within a
 * generous bound (a hang or an exponential blow-up fails, speed is not measured). Only inputs that
 * redis-server itself answers quickly are here; where Redis would work until its memory runs out (e.g.
 * SRANDMEMBER key -9223372036854775807), Spinel's own bound is tested without it.
 */
class BoundedWorkDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    private static final Duration BOUND = Duration.ofSeconds(10);
    private static final String LONG_MIN = "-9223372036854775808";
    private static final String LONG_MAX = "9223372036854775807";
    private static final String STARS = "a*".repeat(31) + "b"; // issue #16: 31 stars, then a byte the key lacks

    @Test
    void globPatternsWithManyStars() throws IOException {
        String key = "a".repeat(69);
        compare(List.of(
                List.of("SET", key, "1"),
                List.of("KEYS", STARS),
                List.of("SCAN", "0", "MATCH", STARS, "COUNT", "100"),
                List.of("KEYS", "*?".repeat(40) + "b"),
                List.of("KEYS", "*a".repeat(69)),
                List.of("KEYS", "a*".repeat(1001) + "a"),
                List.of("HSET", "h", key, "1"),
                List.of("HSCAN", "h", "0", "MATCH", STARS),
                List.of("SADD", "s", key),
                List.of("SSCAN", "s", "0", "MATCH", STARS),
                List.of("ZADD", "z", "1", key),
                List.of("ZSCAN", "z", "0", "MATCH", STARS),
                List.of("PUBSUB", "CHANNELS", STARS),
                List.of("CONFIG", "GET", STARS),
                List.of("COMMAND", "LIST", "FILTERBY", "PATTERN", STARS),
                List.of("FUNCTION", "LIST", "LIBRARYNAME", STARS)));
    }

    @Test
    void countsAndRangesTheClientChooses() throws IOException {
        compare(List.of(
                List.of("RPUSH", "l", "3", "1", "2"),
                List.of("LRANGE", "l", LONG_MIN, LONG_MAX),
                List.of("SORT", "l", "LIMIT", "0", LONG_MAX),
                List.of("SORT", "l", "LIMIT", LONG_MAX, LONG_MAX),
                List.of("SORT", "l", "BY", "w_*", "GET", "#", "GET", "h_*->f", "LIMIT", "1", "2147483648"),
                List.of("LPOS", "l", "1", "RANK", LONG_MIN),
                List.of("LPOS", "l", "1", "COUNT", LONG_MAX, "MAXLEN", LONG_MAX),
                List.of("SCAN", "0", "COUNT", LONG_MAX, "MATCH", "l"),
                List.of("SADD", "s2", "a", "b", "c"),
                List.of("SRANDMEMBER", "s2", LONG_MIN),
                List.of("SADD", "one", "m"),
                List.of("SRANDMEMBER", "one", LONG_MAX),
                List.of("SPOP", "nokey", LONG_MAX),
                List.of("HSET", "h2", "f", "v"),
                List.of("HRANDFIELD", "h2", LONG_MIN),
                List.of("HRANDFIELD", "h2", "-" + LONG_MAX, "WITHVALUES"),
                List.of("ZADD", "z2", "1", "a", "2", "b"),
                List.of("ZRANDMEMBER", "z2", LONG_MIN),
                List.of("ZRANDMEMBER", "z2", "-" + LONG_MAX, "WITHSCORES"),
                List.of("ZRANGE", "z2", LONG_MIN, LONG_MAX),
                List.of("ZRANGE", "z2", "-inf", "+inf", "BYSCORE", "LIMIT", LONG_MAX, "-1"),
                List.of("ZUNIONSTORE", "d", "2147483647", "z2"),
                List.of("ZUNIONSTORE", "d", LONG_MAX, "z2"),
                List.of("ZINTER", "100000000", "z2"),
                List.of("XADD", "x", "1-1", "f", "v"),
                List.of("XRANGE", "x", "-", "+", "COUNT", LONG_MAX),
                List.of("XREVRANGE", "x", "+", "-", "COUNT", LONG_MIN),
                List.of("XREAD", "COUNT", LONG_MAX, "STREAMS", "x", "0"),
                List.of("XGROUP", "CREATE", "x", "g", "0"),
                List.of("XAUTOCLAIM", "x", "g", "c", "0", "0", "COUNT", LONG_MAX),
                List.of("XPENDING", "x", "g", "-", "+", LONG_MAX),
                List.of("XINFO", "STREAM", "x", "FULL", "COUNT", LONG_MAX),
                List.of("GEOADD", "geo", "0", "0", "a"),
                List.of("GEOSEARCH", "geo", "FROMLONLAT", "0", "0", "BYRADIUS", "1e300", "m", "COUNT", LONG_MAX),
                List.of("SET", "str", "abc"),
                List.of("GETRANGE", "str", LONG_MIN, LONG_MAX),
                List.of("BITCOUNT", "str", LONG_MIN, LONG_MAX),
                List.of("BITPOS", "str", "1", LONG_MIN, LONG_MAX, "BIT")));
    }

    @Test
    void stringsStopAtProtoMaxBulkLen() throws IOException {
        compare(List.of(
                List.of("CONFIG", "SET", "proto-max-bulk-len", "1mb"),
                List.of("SET", "s", "abc"),
                List.of("SETRANGE", "s", "1048576", "x"),
                List.of("SETRANGE", "s", LONG_MAX, "x"),
                List.of("SETBIT", "s", "8388608", "1"),
                List.of("SETBIT", "s", "4294967296", "1"),
                List.of("BITFIELD", "s", "SET", "u8", "8388608", "1"),
                List.of("BITFIELD", "s", "SET", "u8", "4294967296", "1"),
                List.of("SETRANGE", "s", "1048574", "x"),
                List.of("APPEND", "s", "yy"),
                List.of("APPEND", "s", "y"),
                List.of("STRLEN", "s"),
                List.of("SETRANGE", "a", "20000", "x"),
                List.of("SETRANGE", "b", "20000", "y"),
                List.of("LCS", "a", "b", "LEN"),
                List.of("LCS", "a", "b", "IDX"),
                List.of("CONFIG", "SET", "proto-max-bulk-len", "512mb")));
    }

    @Test
    void scriptsHitLua51sLimits() throws IOException {
        List<String> scripts = List.of(
                "return #{unpack({}, 1, 7997)}",
                "return #{unpack({}, 1, 7998)}",
                "return #{unpack({}, 1, 1e8)}",
                "return #{unpack({}, -1e8, 1e8)}",
                "return #{unpack({}, 2^31, 2^31 + 5)}",
                "return {pcall(unpack, {}, 1, 1e9)}",
                "return {unpack({1, 2, 3}, -1)}",
                "return {unpack({1, 2, 3})}",
                "return {pcall(unpack)}",
                "return #{string.byte(string.rep('x', 7997), 1, -1)}",
                "return #{string.byte(string.rep('x', 7998), 1, -1)}",
                "return #{string.byte(string.rep('x', 1e6), 1, -1)}",
                "return {string.byte('abc', 0, 10)}",
                "return {string.byte('abc', -2)}",
                "return {string.byte('abc', 3, 2)}",
                "return string.rep('x', -1)",
                "return string.rep('ab', 0)",
                "return string.len(string.rep('x', 2^31))",
                "return string.len(string.rep('x', 4e9))",
                "return string.len(string.rep('', 1e6))",
                "return {pcall(string.rep, 'x', -1)}",
                "return string.rep('ab', 3)",
                "return cjson.decode(string.rep('[', 100000))",
                "local t = {} local c = t for i = 1, 2000 do c[1] = {} c = c[1] end return cjson.encode(t)",
                "return type(cmsgpack.unpack(string.rep('\\145', 100000)))",
                "return select('#', cmsgpack.unpack(string.rep('\\1', 8100)))",
                "return cmsgpack.unpack('\\221\\127\\255\\255\\255')",
                "return #struct.pack('i2000000000', 1)",
                "return struct.unpack('c2000000000', 'x')",
                "return select('#', struct.unpack(string.rep('b', 8100), string.rep('x', 8100)))",
                "return string.format('%99999d', 1)");
        List<List<String>> cmds = new ArrayList<>();
        for (String s : scripts) {
            cmds.add(List.of("EVAL", s, "0"));
        }
        compare(cmds);
    }

    @Test
    void corruptedHyperLogLogsAreRefused() throws IOException {
        byte[] header = {'H', 'Y', 'L', 'L', 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0x80}; // sparse, cache invalid
        List<byte[]> values = new ArrayList<>();
        values.add(concat(header, xzero(16384), new byte[] {(byte) 0xff, (byte) 0xff})); // a run past the end
        values.add(concat(header, xzero(16382), new byte[] {(byte) 0x83}));
        values.add(concat(header, xzero(16384), new byte[] {0}));
        ByteArrayOutputStream wrap = new ByteArrayOutputStream();
        wrap.writeBytes(header);
        for (int i = 0; i < 262_144; i++) { // 2^32 registers: a 32-bit index wraps back to 16384
            wrap.writeBytes(xzero(16384));
        }
        wrap.writeBytes(xzero(16384));
        values.add(wrap.toByteArray());
        values.add(concat(header, xzero(16383), new byte[] {(byte) 0x80})); // valid: 16383 zeros, then a 1
        try (RawClient a = new RawClient(SERVERS.spinel().port()); RawClient b = new RawClient(SERVERS.redis().port())) {
            int n = 0;
            for (byte[] v : values) {
                n++;
                List<List<byte[]>> cmds = List.of(
                        List.of(bytes("SET"), bytes("k"), v),
                        List.of(bytes("SET"), bytes("k2"), v),
                        List.of(bytes("PFCOUNT"), bytes("k")),
                        List.of(bytes("PFCOUNT"), bytes("k"), bytes("none")),
                        List.of(bytes("PFMERGE"), bytes("dest" + n), bytes("k2")),
                        List.of(bytes("PFDEBUG"), bytes("GETREG"), bytes("k2")),
                        List.of(bytes("PFADD"), bytes("k"), bytes("x"), bytes("y")),
                        List.of(bytes("PFCOUNT"), bytes("k")));
                for (List<byte[]> cmd : cmds) {
                    String shown = "value " + n + ": " + new String(cmd.get(0), StandardCharsets.US_ASCII);
                    assertEquals(Replies.escape(b.call(cmd)), Replies.escape(timed(a, cmd)), shown);
                }
            }
        }
    }

    private static void compare(List<List<String>> script) throws IOException {
        try (RawClient a = new RawClient(SERVERS.spinel().port()); RawClient b = new RawClient(SERVERS.redis().port())) {
            List<String> diffs = new ArrayList<>();
            for (List<String> cmd : script) {
                List<byte[]> args = cmd.stream().map(BoundedWorkDiffTest::bytes).toList();
                String fromSpinel = Replies.escape(timed(a, args));
                String fromRedis = Replies.escape(b.call(args));
                if (!fromSpinel.equals(fromRedis)) {
                    diffs.add(shorten(cmd) + "\n  spinel: " + fromSpinel + "\n  redis:  " + fromRedis);
                }
            }
            assertEquals(List.of(), diffs);
        }
    }

    private static byte[] timed(RawClient c, List<byte[]> args) {
        return assertTimeoutPreemptively(BOUND, () -> c.call(args), () -> "no answer within " + BOUND);
    }

    private static String shorten(List<String> cmd) {
        String s = String.join(" ", cmd);
        return s.length() > 120 ? s.substring(0, 120) + "..." : s;
    }

    private static byte[] xzero(int n) {
        return new byte[] {(byte) (0x40 | ((n - 1) >> 8)), (byte) ((n - 1) & 0xff)};
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }
}
