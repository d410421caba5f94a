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
 * Strings held in their entry's fields (short keys, values of up to 48 bytes) against redis-server: random string
 * commands over keys on both sides of the 19-byte key limit and values of every length across the 8-byte words,
 * Redis's 44-byte embstr limit and the 48-byte inline limit, each reply byte for byte (OBJECT ENCODING and DUMP
 * included), then the whole keyspace after a DEBUG RELOAD (an RDB written from the entries and read
 * back).
 */
class InlineStringDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide("enable-debug-command", "yes", "enable-protected-configs", "yes");

    @TempDir
    Path spinelDir;

    private final Random rnd = new Random(15);
    private final List<String> failures = new ArrayList<>();
    private RawClient redis;
    private RawClient spinel;

    private static final String[] KEYS = new String[24];

    static {
        for (int i = 0; i < KEYS.length; i++) {
            int len = switch (i % 4) {
                case 0 -> 3;
                case 1 -> 14;
                case 2 -> 18 + (i / 4) % 4; // 18 to 21: across the 19-byte limit of a key with its value inline
                default -> 30;
            };
            StringBuilder k = new StringBuilder("k" + i + ":");
            while (k.length() < len) {
                k.append((char) ('a' + k.length() % 26));
            }
            KEYS[i] = k.substring(0, len);
        }
    }

    private String key() {
        return KEYS[rnd.nextInt(KEYS.length)];
    }

    private String value() {
        int len = switch (rnd.nextInt(5)) {
            case 0 -> rnd.nextInt(9);
            case 1 -> 40 + rnd.nextInt(10); // the embstr and inline limits
            case 2 -> 32;
            default -> rnd.nextInt(60);
        };
        if (rnd.nextInt(6) == 0) {
            return Long.toString(rnd.nextLong() >> rnd.nextInt(64)); // integers, some shared (0..9999)
        }
        StringBuilder v = new StringBuilder();
        for (int i = 0; i < len; i++) {
            v.append(rnd.nextInt(8) == 0 ? (char) rnd.nextInt(256) : (char) ('a' + rnd.nextInt(26)));
        }
        return v.toString();
    }

    private String same(String... args) throws IOException {
        List<byte[]> argv = new ArrayList<>();
        for (String a : args) {
            argv.add(a.getBytes(StandardCharsets.ISO_8859_1));
        }
        String r = new String(redis.call(argv), StandardCharsets.ISO_8859_1);
        String s = new String(spinel.call(argv), StandardCharsets.ISO_8859_1);
        if (!r.equals(s) && failures.size() < 20) {
            failures.add(String.join(" ", args) + "\n    spinel: " + s.strip() + "\n    redis:  " + r.strip());
        }
        return r;
    }

    private void step() throws IOException {
        String k = key();
        switch (rnd.nextInt(22)) {
            case 0, 1, 2 -> same("SET", k, value());
            case 3 -> same("SET", k, value(), "EX", "100000");
            case 4 -> same("SET", k, value(), rnd.nextBoolean() ? "KEEPTTL" : "XX", "GET");
            case 5 -> same("SETNX", k, value());
            case 6 -> same("GETSET", k, value());
            case 7 -> same("MSET", k, value(), key(), value());
            case 8 -> same("APPEND", k, value());
            case 9 -> same("SETRANGE", k, Integer.toString(rnd.nextInt(50)), value());
            case 10 -> same("INCRBY", k, Integer.toString(rnd.nextInt(2000) - 1000));
            case 11 -> same("EXPIRE", k, "100000");
            case 12 -> same("PERSIST", k);
            case 13 -> same("GETEX", k, rnd.nextBoolean() ? "PERSIST" : "EX");
            case 14 -> same("GETDEL", k);
            case 15 -> same("COPY", k, key(), "REPLACE");
            case 16 -> same("RENAME", k, key());
            case 17 -> {
                String dump = same("DUMP", k);
                if (dump.startsWith("$") && !dump.startsWith("$-1")) {
                    int start = dump.indexOf("\r\n") + 2;
                    same("RESTORE", key(), "0", dump.substring(start, dump.length() - 2), "REPLACE");
                }
            }
            case 18 -> same("RPUSH", k, value()); // a collection where a string may be: WRONGTYPE either way round
            default -> {
                same("GET", k);
                same("MGET", k, key(), key());
                same("STRLEN", k);
                same("GETRANGE", k, Integer.toString(rnd.nextInt(50) - 25), Integer.toString(rnd.nextInt(50) - 10));
                same("OBJECT", "ENCODING", k);
                same("TYPE", k);
            }
        }
    }

    private void compareAll() throws IOException {
        for (String k : KEYS) {
            same("GET", k);
            same("TYPE", k);
            same("OBJECT", "ENCODING", k);
            same("STRLEN", k);
            same("DUMP", k);
            same("PERSIST", k); // 1 when it had a time to live: both servers agree on which keys are volatile
        }
    }

    @Test
    void stringCommandsMatchRedisAcrossTheInlineLimits() throws Exception {
        try (RawClient r = new RawClient(SERVERS.redis().port()); RawClient s = new RawClient(SERVERS.spinel().port())) {
            redis = r;
            spinel = s;
            // DEBUG RELOAD writes dump.rdb: into a directory of this test's, never the working directory.
            assertEquals("+OK\r\n", s.callString("CONFIG", "SET", "dir", spinelDir.toString()));
            same("FLUSHALL");
            for (int round = 0; round < 4; round++) {
                for (int i = 0; i < 1500; i++) {
                    step();
                }
                assertEquals("+OK\r\n", same("DEBUG", "RELOAD"));
                compareAll();
            }
            assertEquals(List.of(), failures, String.join("\n", failures));
        }
    }
}
