package dev.spinel.server.diff;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * DEBUG DIGEST and DEBUG DIGEST-VALUE against redis-server: the same data written into both gives the same
 * digests, for every type in each of its encodings, with and without times to live, over several databases.
 */
class DebugDigestDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide("enable-debug-command", "yes");

    private static final String ZEROS = "0000000000000000000000000000000000000000";

    @Test
    void emptyDatasetAndMissingKeysDigestToZeros() throws Exception {
        try (RawClient s = new RawClient(SERVERS.spinel().port()); RawClient r = new RawClient(SERVERS.redis().port())) {
            for (RawClient c : List.of(s, r)) {
                c.call("FLUSHALL");
                assertEquals("+" + ZEROS + "\r\n", c.callString("DEBUG", "DIGEST"));
                assertEquals("*2\r\n+" + ZEROS + "\r\n+" + ZEROS + "\r\n", c.callString("DEBUG", "DIGEST-VALUE", "a", "b"));
                assertEquals("*0\r\n", c.callString("DEBUG", "DIGEST-VALUE"));
            }
            assertEquals(r.callString("DEBUG", "DIGEST", "extra"), s.callString("DEBUG", "DIGEST", "extra"));
        }
    }

    @Test
    void everyTypeAndEncodingDigestsAsRedisDoes() throws Exception {
        List<List<String>> script = new ArrayList<>();
        script.add(List.of("FLUSHALL"));
        script.add(List.of("SET", "str", "hello"));
        script.add(List.of("SET", "int", "12345"));
        script.add(List.of("SET", "neg", "-7"));
        script.add(List.of("SET", "bin", "a\u0000b\u00ff"));
        script.add(List.of("SET", "ttl", "v", "EX", "1000"));
        script.add(List.of("RPUSH", "list", "a", "1", "b", "22", "c"));
        script.add(List.of("RPUSH", "biglist", "x".repeat(100), "y", "z"));
        script.add(List.of("SADD", "intset", "1", "2", "3", "-100"));
        script.add(List.of("SADD", "set", "a", "b", "c", "1"));
        script.add(List.of("ZADD", "zsmall", "1", "a", "2.5", "b", "-0.1", "c", "1e300", "d", "inf", "e", "3", "7"));
        script.add(List.of("ZADD", "zbig", "1", "x".repeat(100), "0.3333333333333333", "y", "-inf", "z"));
        script.add(List.of("HSET", "hsmall", "f1", "v1", "f2", "2", "3", "v3"));
        script.add(List.of("HSET", "hbig", "f", "x".repeat(100), "g", "1"));
        script.add(List.of("XADD", "stream", "1-1", "a", "1", "b", "2"));
        script.add(List.of("XADD", "stream", "1-2", "a", "3", "b", "4"));
        script.add(List.of("XADD", "stream", "2-0", "c", "x", "d", "-12"));
        script.add(List.of("XADD", "stream", "18446744073709551615-5", "z", "y"));
        script.add(List.of("XDEL", "stream", "1-2"));
        script.add(List.of("XGROUP", "CREATE", "stream", "g", "0"));
        script.add(List.of("PEXPIRE", "list", "100000000"));
        script.add(List.of("EXPIRE", "zsmall", "100000"));
        script.add(List.of("SELECT", "3"));
        script.add(List.of("SET", "str", "hello"));
        script.add(List.of("HSET", "hsmall", "f1", "v1"));
        script.add(List.of("SELECT", "0"));
        try (RawClient s = new RawClient(SERVERS.spinel().port()); RawClient r = new RawClient(SERVERS.redis().port())) {
            for (List<String> cmd : script) {
                assertEquals(r.callString(cmd.toArray(String[]::new)), s.callString(cmd.toArray(String[]::new)), cmd.toString());
            }
            String digest = r.callString("DEBUG", "DIGEST");
            assertNotEquals("+" + ZEROS + "\r\n", digest);
            assertEquals(digest, s.callString("DEBUG", "DIGEST"));
            String[] values = {"DEBUG", "DIGEST-VALUE", "str", "int", "neg", "bin", "ttl", "list", "biglist", "intset", "set",
                "zsmall", "zbig", "hsmall", "hbig", "stream", "missing"};
            assertEquals(r.callString(values), s.callString(values));
            // The database number is part of the dataset's digest: the same data in db 5 digests differently.
            for (RawClient c : List.of(s, r)) {
                c.call("SELECT", "3");
                c.call("MOVE", "str", "5");
            }
            assertNotEquals(digest, r.callString("DEBUG", "DIGEST"));
            assertEquals(r.callString("DEBUG", "DIGEST"), s.callString("DEBUG", "DIGEST"));
            for (RawClient c : List.of(s, r)) {
                c.call("SELECT", "0");
            }
        }
    }

    /** Random members, scores and lengths, so that both encodings of each type and odd bytes are digested. */
    @Test
    void randomDataDigestsAsRedisDoes() throws Exception {
        Random rnd = new Random(20261127);
        try (RawClient s = new RawClient(SERVERS.spinel().port()); RawClient r = new RawClient(SERVERS.redis().port())) {
            for (RawClient c : List.of(s, r)) {
                c.call("FLUSHALL");
            }
            for (int k = 0; k < 60; k++) {
                int n = 1 + rnd.nextInt(k % 2 == 0 ? 8 : 200);
                List<byte[]> cmd = new ArrayList<>();
                String key = "k" + k;
                switch (k % 5) {
                    case 0 -> add(cmd, "RPUSH", key);
                    case 1 -> add(cmd, "SADD", key);
                    case 2 -> add(cmd, "ZADD", key);
                    case 3 -> add(cmd, "HSET", key);
                    default -> add(cmd, "XADD", key, "*");
                }
                for (int i = 0; i < n; i++) {
                    if (k % 5 == 2) {
                        add(cmd, Double.toString(rnd.nextInt(3) == 0 ? rnd.nextInt(100) : rnd.nextGaussian() * 1e6));
                    }
                    cmd.add(randomBytes(rnd));
                    if (k % 5 >= 3) {
                        cmd.add(randomBytes(rnd));
                    }
                }
                byte[] rr = r.call(cmd);
                if (k % 5 == 4) {
                    // XADD * makes its own ID: write Redis's ID into Spinel so both hold the same entry
                    String id = new String(rr, StandardCharsets.ISO_8859_1).split("\r\n")[1];
                    cmd.set(2, id.getBytes(StandardCharsets.ISO_8859_1));
                }
                s.call(cmd);
                if (rnd.nextBoolean()) {
                    for (RawClient c : List.of(s, r)) {
                        c.call("EXPIRE", key, "100000");
                    }
                }
            }
            assertEquals(r.callString("DEBUG", "DIGEST"), s.callString("DEBUG", "DIGEST"));
            for (int k = 0; k < 60; k++) {
                assertEquals(r.callString("DEBUG", "DIGEST-VALUE", "k" + k), s.callString("DEBUG", "DIGEST-VALUE", "k" + k), "k" + k);
            }
        }
    }

    private static void add(List<byte[]> cmd, String... parts) {
        for (String p : parts) {
            cmd.add(p.getBytes(StandardCharsets.ISO_8859_1));
        }
    }

    private static byte[] randomBytes(Random rnd) {
        if (rnd.nextInt(4) == 0) {
            return Long.toString(rnd.nextLong() >> rnd.nextInt(64)).getBytes(StandardCharsets.ISO_8859_1);
        }
        byte[] b = new byte[rnd.nextInt(rnd.nextInt(10) == 0 ? 120 : 12)];
        rnd.nextBytes(b);
        return b;
    }
}
