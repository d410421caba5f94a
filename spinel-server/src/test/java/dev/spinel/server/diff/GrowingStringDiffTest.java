package dev.spinel.server.diff;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Strings changed in place (APPEND, SETRANGE, SETBIT, BITFIELD on an existing key: spare room as Redis's sds)
 * against redis-server: random sequences of those writes, mixed with SET (an immutable value again), COPY (the copy
 * must not see the original's later changes), DEL and the reads (GET, GETRANGE, STRLEN, GETBIT, BITCOUNT, BITPOS,
 * BITFIELD GET, OBJECT ENCODING and REFCOUNT, BITOP, LCS, SORT BY and GET patterns: the last four read a grown string
 * in place, its array longer than the string), each reply byte for byte; MEMORY USAGE within a factor of Redis's (Redis rounds
 * each allocation to jemalloc's classes, so the exact points where the room is doubled differ), then the whole
 * keyspace after a DEBUG RELOAD.
 */
class GrowingStringDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide("enable-debug-command", "yes", "enable-protected-configs", "yes");

    @TempDir
    Path spinelDir;

    private static final String[] KEYS = {"g1", "g2", "grow:key:three", "a-key-longer-than-the-inline-limit:4"};

    private final Random rnd = new Random(1515);
    private final List<String> failures = new ArrayList<>();
    private RawClient redis;
    private RawClient spinel;

    private String key() {
        return KEYS[rnd.nextInt(KEYS.length)];
    }

    private String value(int max) {
        int len = rnd.nextInt(max + 1);
        StringBuilder v = new StringBuilder(len);
        for (int i = 0; i < len; i++) {
            v.append((char) ('a' + rnd.nextInt(26)));
        }
        return v.toString();
    }

    private String same(String... args) throws IOException {
        String r = call(redis, args);
        String s = call(spinel, args);
        if (!r.equals(s) && failures.size() < 20) {
            String shown = String.join(" ", args);
            failures.add((shown.length() > 200 ? shown.substring(0, 200) + "..." : shown) + "\n    spinel: "
                    + abbreviate(s) + "\n    redis:  " + abbreviate(r));
        }
        return r;
    }

    private static String abbreviate(String s) {
        return s.length() > 200 ? s.substring(0, 200) + "... (" + s.length() + " bytes)" : s.strip();
    }

    private static String call(RawClient c, String... args) throws IOException {
        List<byte[]> argv = new ArrayList<>();
        for (String a : args) {
            argv.add(a.getBytes(StandardCharsets.ISO_8859_1));
        }
        return new String(c.call(argv), StandardCharsets.ISO_8859_1);
    }

    /** MEMORY USAGE of both servers: within a factor of two of each other, and both a number or both nil. */
    private void memoryUsage(String k) throws IOException {
        String r = call(redis, "MEMORY", "USAGE", k);
        String s = call(spinel, "MEMORY", "USAGE", k);
        if (r.startsWith(":") != s.startsWith(":")) {
            failures.add("MEMORY USAGE " + k + ": spinel " + s.strip() + ", redis " + r.strip());
            return;
        }
        if (r.startsWith(":")) {
            long rv = Long.parseLong(r.substring(1).strip());
            long sv = Long.parseLong(s.substring(1).strip());
            if ((sv > 2 * rv || rv > 2 * sv) && failures.size() < 20) {
                failures.add("MEMORY USAGE " + k + " (" + call(redis, "STRLEN", k).strip() + " bytes): spinel " + sv
                        + ", redis " + rv);
            }
        }
    }

    private void step() throws IOException {
        String k = key();
        switch (rnd.nextInt(24)) {
            case 0, 1, 2, 3 -> same("APPEND", k, value(rnd.nextInt(8) == 0 ? 20_000 : 600));
            case 4, 5 -> same("SETRANGE", k, Integer.toString(rnd.nextInt(rnd.nextBoolean() ? 100 : 40_000)), value(300));
            case 6, 7 -> same("SETBIT", k, Integer.toString(rnd.nextInt(rnd.nextBoolean() ? 800 : 300_000)), Integer.toString(rnd.nextInt(2)));
            case 8 -> same("BITFIELD", k, "SET", "u8", "#" + rnd.nextInt(5000), Integer.toString(rnd.nextInt(256)),
                    "INCRBY", "i16", Integer.toString(rnd.nextInt(60_000)), Integer.toString(rnd.nextInt(2000) - 1000),
                    "GET", "u32", Integer.toString(rnd.nextInt(60_000)));
            case 9 -> same("SET", k, value(rnd.nextBoolean() ? 40 : 3000));
            case 10 -> same("COPY", k, key(), "REPLACE");
            case 11 -> same("DEL", k);
            case 12 -> same("GETRANGE", k, Integer.toString(rnd.nextInt(60_000) - 20_000), Integer.toString(rnd.nextInt(60_000) - 5_000));
            case 13 -> same("GETBIT", k, Integer.toString(rnd.nextInt(400_000)));
            case 14 -> same("BITCOUNT", k, Integer.toString(rnd.nextInt(2000) - 1000), Integer.toString(rnd.nextInt(50_000)));
            case 15 -> same("BITPOS", k, Integer.toString(rnd.nextInt(2)), Integer.toString(rnd.nextInt(3000)));
            case 16 -> same("BITFIELD_RO", k, "GET", "i32", Integer.toString(rnd.nextInt(400_000)));
            case 17 -> memoryUsage(k);
            case 18 -> {
                String op = new String[] {"AND", "OR", "XOR", "NOT"}[rnd.nextInt(4)];
                if (op.equals("NOT")) {
                    same("BITOP", op, key(), k);
                } else {
                    same("BITOP", op, key(), k, key(), key());
                }
            }
            case 19 -> {
                switch (rnd.nextInt(3)) {
                    case 0 -> same("LCS", k, "lcs:small");
                    case 1 -> same("LCS", "lcs:small", k, "LEN");
                    default -> same("LCS", k, "lcs:small", "IDX", "MINMATCHLEN", "2", "WITHMATCHLEN");
                }
            }
            case 20 -> {
                // STORE: Redis compares ALPHA weights as binary strings then (strcoll otherwise, which stops at a NUL)
                same("SORT", "sort:list", "BY", "*", "ALPHA", "GET", "*", "GET", "#", "STORE", "sort:dst");
                same("LRANGE", "sort:dst", "0", "-1");
                same("SORT", "sort:list", "BY", "*");
            }
            case 21 -> same("OBJECT", "REFCOUNT", k);
            default -> {
                same("GET", k);
                same("STRLEN", k);
                same("OBJECT", "ENCODING", k);
            }
        }
    }

    private void compareAll() throws IOException {
        for (String k : KEYS) {
            same("GET", k);
            same("STRLEN", k);
            same("OBJECT", "ENCODING", k);
            memoryUsage(k);
        }
    }

    @Test
    void inPlaceWritesMatchRedis() throws Exception {
        try (RawClient r = new RawClient(SERVERS.redis().port()); RawClient s = new RawClient(SERVERS.spinel().port())) {
            redis = r;
            spinel = s;
            // DEBUG RELOAD writes dump.rdb: into a directory of this test's, never the working directory.
            assertEquals("+OK\r\n", s.callString("CONFIG", "SET", "dir", spinelDir.toString()));
            same("FLUSHALL");
            same("SET", "lcs:small", "qwertyuiopasdfgh");
            same("RPUSH", "sort:list", KEYS[0], KEYS[1], KEYS[2], KEYS[3], "missing");
            for (int round = 0; round < 3; round++) {
                for (int i = 0; i < 700; i++) {
                    step();
                }
                compareAll();
                assertEquals("+OK\r\n", same("DEBUG", "RELOAD"));
                compareAll();
            }
            assertEquals(List.of(), failures, String.join("\n", failures));
        }
    }

    /** A string appended to, then copied: the copy keeps its bytes while the original keeps growing in place. */
    @Test
    void copyOfAGrowingStringDoesNotChange() throws Exception {
        try (RawClient r = new RawClient(SERVERS.redis().port()); RawClient s = new RawClient(SERVERS.spinel().port())) {
            redis = r;
            spinel = s;
            same("FLUSHALL");
            same("SET", "src", "start");
            for (int i = 0; i < 50; i++) {
                same("APPEND", "src", "-" + i);
            }
            same("COPY", "src", "dst");
            same("APPEND", "src", "more");
            same("SETRANGE", "src", "0", "XYZ");
            same("SETBIT", "src", "3", "1");
            same("GET", "dst");
            same("GET", "src");
            same("APPEND", "dst", "!");
            same("GET", "dst");
            same("GET", "src");
            assertEquals(List.of(), failures, String.join("\n", failures));
        }
    }
}
