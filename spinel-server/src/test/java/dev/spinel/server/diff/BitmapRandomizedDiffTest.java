package dev.spinel.server.diff;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Thousands of seeded random bitmap commands (SETBIT, GETBIT, BITCOUNT, BITPOS, BITOP, BITFIELD with
 * every width, offset form and overflow mode, BITFIELD_RO) sent to Spinel and to a real redis-server,
 * replies compared byte for byte; a GET of a random key now and then compares the strings themselves,
 * and the change counters (INFO's rdb_changes_since_last_save) are compared at the end. A failure
 * names the seed and the step.
 */
class BitmapRandomizedDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    @Test
    void randomBitmapCommands() throws IOException {
        long seed = Long.getLong("random.seed", 20261123L);
        int steps = Integer.getInteger("random.steps", 8000);
        Random rnd = new Random(seed);
        try (RawClient a = new RawClient(SERVERS.spinel().port()); RawClient b = new RawClient(SERVERS.redis().port())) {
            long changesA = changes(a);
            long changesB = changes(b);
            for (int step = 0; step < steps; step++) {
                String[] c = next(rnd);
                String ra = new String(a.call(c), StandardCharsets.ISO_8859_1);
                String rb = new String(b.call(c), StandardCharsets.ISO_8859_1);
                assertEquals(rb, ra, "seed " + seed + " step " + step + ": " + String.join(" ", c));
            }
            assertEquals(changes(b) - changesB, changes(a) - changesA, "changes counted (seed " + seed + ")");
        }
    }

    private static long changes(RawClient c) throws IOException {
        for (String line : c.callString("INFO", "persistence").split("\r\n")) {
            if (line.startsWith("rdb_changes_since_last_save:")) {
                return Long.parseLong(line.substring(line.indexOf(':') + 1));
            }
        }
        throw new AssertionError("no rdb_changes_since_last_save");
    }

    private static final String[] KEYS = {"b1", "b2", "b3", "b4", "list"};
    private static final String[] OVERFLOW = {"WRAP", "SAT", "FAIL"};
    private static final long[] EDGES = {0, 1, -1, 2, -2, 127, 128, -128, -129, 255, 256, 32767, -32768, 65535,
            Integer.MAX_VALUE, Integer.MIN_VALUE, 4294967295L, Long.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE - 1,
            Long.MIN_VALUE + 1, 1L << 62, -(1L << 62)};

    private static String key(Random r) {
        return KEYS[r.nextInt(KEYS.length)];
    }

    /** Mostly small offsets (so that fields overlap), sometimes far ones. */
    private static long offset(Random r) {
        return r.nextInt(10) == 0 ? r.nextInt(4000) : r.nextInt(120);
    }

    /** A range index: small, negative, or past the end. */
    private static String index(Random r) {
        return Integer.toString(r.nextInt(10) == 0 ? r.nextInt(400) - 200 : r.nextInt(60) - 30);
    }

    private static String value(Random r) {
        return switch (r.nextInt(3)) {
            case 0 -> Long.toString(EDGES[r.nextInt(EDGES.length)]);
            case 1 -> Long.toString(r.nextLong());
            default -> Integer.toString(r.nextInt(600) - 300);
        };
    }

    private static String[] next(Random r) {
        List<String> a = new ArrayList<>();
        int kind = r.nextInt(20);
        switch (kind) {
            case 0, 1, 2, 3 -> a.addAll(List.of("SETBIT", key(r), Long.toString(offset(r)), r.nextInt(3) == 0 ? "0" : "1"));
            case 4 -> a.addAll(List.of("GETBIT", key(r), Long.toString(offset(r))));
            case 5, 6 -> {
                a.addAll(List.of("BITCOUNT", key(r)));
                if (r.nextInt(4) != 0) {
                    a.add(index(r));
                    a.add(index(r));
                    if (r.nextBoolean()) {
                        a.add(r.nextBoolean() ? "BIT" : "byte");
                    }
                }
            }
            case 7, 8 -> {
                a.addAll(List.of("BITPOS", key(r), r.nextBoolean() ? "1" : "0"));
                int extra = r.nextInt(4);
                if (extra >= 1) {
                    a.add(index(r));
                }
                if (extra >= 2) {
                    a.add(index(r));
                }
                if (extra == 3) {
                    a.add(r.nextBoolean() ? "bit" : "BYTE");
                }
            }
            case 9 -> {
                String[] ops = {"AND", "OR", "XOR", "NOT"};
                String op = ops[r.nextInt(4)];
                a.addAll(List.of("BITOP", op, key(r)));
                int n = op.equals("NOT") ? 1 : 1 + r.nextInt(3);
                for (int i = 0; i < n; i++) {
                    a.add(r.nextInt(6) == 0 ? "missing" : key(r));
                }
            }
            case 10, 11, 12, 13, 14 -> bitfield(r, a, "BITFIELD");
            case 15 -> bitfield(r, a, "BITFIELD_RO");
            case 16 -> a.addAll(List.of("GET", key(r)));
            case 17 -> a.addAll(List.of("STRLEN", key(r)));
            case 18 -> {
                if (r.nextInt(8) == 0) {
                    a.addAll(List.of("DEL", key(r)));
                } else if (r.nextInt(4) == 0) {
                    a.addAll(List.of("RPUSH", "list", "x"));
                } else {
                    a.addAll(List.of("GETBIT", key(r), Long.toString(r.nextInt(8))));
                }
            }
            default -> {
                // a few bytes of arbitrary content, so that strings do not only grow from zero
                StringBuilder v = new StringBuilder();
                int n = r.nextInt(6);
                for (int i = 0; i < n; i++) {
                    v.append((char) ('a' + r.nextInt(26)));
                }
                a.addAll(List.of(r.nextBoolean() ? "APPEND" : "SET", KEYS[r.nextInt(4)], v.toString()));
            }
        }
        return a.toArray(new String[0]);
    }

    private static void bitfield(Random r, List<String> a, String command) {
        a.add(command);
        a.add(key(r));
        int n = 1 + r.nextInt(4);
        for (int i = 0; i < n; i++) {
            boolean signed = r.nextBoolean();
            int bits = r.nextInt(4) == 0 ? (signed ? 64 : 63) - r.nextInt(3) : 1 + r.nextInt(signed ? 64 : 63);
            String type = (signed ? "i" : "u") + bits;
            String off = r.nextInt(4) == 0 ? "#" + r.nextInt(8) : Long.toString(offset(r));
            int op = command.equals("BITFIELD_RO") && r.nextInt(10) != 0 ? 0 : r.nextInt(5);
            switch (op) {
                case 0, 1 -> a.addAll(List.of("GET", type, off));
                case 2 -> a.addAll(List.of("SET", type, off, value(r)));
                case 3 -> a.addAll(List.of("INCRBY", type, off, value(r)));
                default -> a.addAll(List.of("OVERFLOW", OVERFLOW[r.nextInt(3)]));
            }
        }
    }
}
