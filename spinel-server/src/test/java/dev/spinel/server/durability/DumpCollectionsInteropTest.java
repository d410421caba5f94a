package dev.spinel.server.durability;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * DUMP and RESTORE of lists, hashes, sets and sorted sets between Spinel and a real redis-server, in
 * both directions, small (listpack/intset) and large (quicklist/hashtable/skip list): a payload made
 * by one restores on the other to the same contents (read back with order-independent commands).
 */
class DumpCollectionsInteropTest {
    private static final List<String> KEYS = List.of("ls", "lb", "hs", "hb", "ss", "si", "sb", "zs", "zb");

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    private static String s(byte[] b) {
        return new String(b, StandardCharsets.ISO_8859_1);
    }

    private static void fill(RawClient c) throws Exception {
        c.call("RPUSH", "ls", "a", "1", "-70000", "", "x".repeat(50));
        c.call("HSET", "hs", "f0", "v", "f1", "12", "f2", "");
        c.call("SADD", "ss", "m1", "m2", "");
        c.call("SADD", "si", "1", "-5", "100000", "9223372036854775807");
        c.call("ZADD", "zs", "1", "a", "-2.5", "b", "inf", "c");
        for (int i = 0; i < 700; i++) {
            c.call("RPUSH", "lb", "e" + i + "y".repeat(i % 90));
            c.call("HSET", "hb", "f" + i, "v" + i);
            c.call("SADD", "sb", "m" + i);
            c.call("ZADD", "zb", Double.toString(i / 3.0), "m" + i);
        }
    }

    /** The bulk payload of a DUMP reply. */
    private static byte[] payload(byte[] reply) {
        int crlf = s(reply).indexOf("\r\n");
        int len = Integer.parseInt(s(reply).substring(1, crlf));
        return Arrays.copyOfRange(reply, crlf + 2, crlf + 2 + len);
    }

    private static String contents(RawClient c, String k) throws Exception {
        StringBuilder sb = new StringBuilder(s(c.call("TYPE", k)));
        sb.append(s(c.call("LRANGE", k, "0", "-1")).startsWith("-") ? "" : s(c.call("LRANGE", k, "0", "-1")));
        sb.append(s(c.call("ZRANGE", k, "0", "-1", "WITHSCORES")).startsWith("-") ? "" : s(c.call("ZRANGE", k, "0", "-1", "WITHSCORES")));
        List<byte[]> hm = new ArrayList<>(List.of(b("HMGET"), b(k)));
        List<byte[]> sm = new ArrayList<>(List.of(b("SMISMEMBER"), b(k)));
        for (int i = 0; i < 700; i++) {
            hm.add(b("f" + i));
            sm.add(b("m" + i));
        }
        for (String x : List.of("", "1", "-5", "100000", "9223372036854775807", "m1", "m2")) {
            sm.add(b(x));
        }
        sb.append(s(c.call(hm))).append(s(c.call(sm))).append(s(c.call("HLEN", k))).append(s(c.call("SCARD", k)));
        return sb.toString();
    }

    @Test
    @Timeout(120)
    void payloadsRestoreOnTheOtherSide() throws Exception {
        try (SpinelServer sp = SpinelServer.start(ServerConfig.defaults().with("port", "0"));
             RedisServerProcess redis = RedisServerProcess.start();
             RawClient s = new RawClient(sp.port()); RawClient r = new RawClient(redis.port())) {
            fill(s);
            fill(r);
            for (String k : KEYS) {
                byte[] fromSpinel = payload(s.call("DUMP", k));
                byte[] fromRedis = payload(r.call("DUMP", k));
                assertEquals("+OK\r\n", s(r.call(List.of(b("RESTORE"), b("copy:" + k), b("0"), fromSpinel))), k);
                assertEquals("+OK\r\n", s(s.call(List.of(b("RESTORE"), b("copy:" + k), b("0"), fromRedis))), k);
            }
            for (String k : KEYS) {
                String expected = contents(r, k);
                assertEquals(expected, contents(s, k), k);
                assertEquals(expected, contents(r, "copy:" + k), "Spinel's DUMP restored in Redis: " + k);
                assertEquals(expected, contents(s, "copy:" + k), "Redis's DUMP restored in Spinel: " + k);
            }
            // Encodings after RESTORE follow each side's thresholds, as a RESTORE in Redis does.
            for (String k : KEYS) {
                assertEquals(s(r.call("OBJECT", "ENCODING", "copy:" + k)), s(s.call("OBJECT", "ENCODING", "copy:" + k)), k);
            }
        }
    }
}
