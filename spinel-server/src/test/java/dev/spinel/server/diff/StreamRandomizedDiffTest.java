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
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Seeded random stream commands sent to Spinel and to a real redis-server, replies compared byte for
 * byte: XADD (explicit, {@code ms-*} and too-small IDs, repeated and changing field sets, integers of
 * every width, trimming with {@code =}/{@code ~}/LIMIT), XDEL, XTRIM, XRANGE/XREVRANGE, XSETID, XINFO
 * STREAM (its node counts prove the node boundaries are Redis's), and on one key consumer groups
 * (XREADGROUP, XACK, XPENDING, XCLAIM/XAUTOCLAIM JUSTID, XINFO GROUPS). Small node limits make many
 * nodes, so approximate trimming and node removal are exercised. A failure names the seed and the step.
 */
class StreamRandomizedDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    private static final String[] KEYS = {"s0", "s1", "g"};
    private String last = "";

    @Test
    void randomStreamCommands() throws IOException {
        long seed = Long.getLong("random.seed", 20261123L);
        int steps = Integer.getInteger("random.steps", 5000);
        Random rnd = new Random(seed);
        long[] nextMs = {1, 1, 1};
        try (RawClient a = new RawClient(SERVERS.spinel().port()); RawClient b = new RawClient(SERVERS.redis().port())) {
            check(seed, -1, a, b, List.of("FLUSHALL"));
            check(seed, -1, a, b, List.of("CONFIG", "SET", "stream-node-max-entries", "7"));
            check(seed, -1, a, b, List.of("CONFIG", "SET", "stream-node-max-bytes", "300"));
            check(seed, -1, a, b, List.of("XGROUP", "CREATE", "g", "grp", "0", "MKSTREAM"));
            int added = 0;
            for (int step = 0; step < steps; step++) {
                int k = rnd.nextInt(KEYS.length);
                List<String> cmd = next(rnd, k, nextMs);
                String reply = check(seed, step, a, b, cmd);
                if (cmd.getFirst().equals("XADD") && reply.startsWith("$") && !reply.startsWith("$-1")) {
                    added++;
                }
            }
            assertTrue(added > steps / 4, added + " entries added");
            check(seed, steps, a, b, List.of("CONFIG", "SET", "stream-node-max-entries", "100"));
            check(seed, steps, a, b, List.of("CONFIG", "SET", "stream-node-max-bytes", "4096"));
        }
    }

    private List<String> next(Random r, int k, long[] nextMs) {
        String key = KEYS[k];
        int p = r.nextInt(100);
        List<String> c = new ArrayList<>();
        if (p < 40) {
            c.add("XADD");
            c.add(key);
            if (r.nextInt(10) == 0) {
                c.add("NOMKSTREAM");
            }
            if (r.nextInt(6) == 0) {
                trimArgs(r, c, nextMs[k]);
            }
            int idKind = r.nextInt(10);
            if (idKind < 5) {
                c.add(nextMs[k] + "-" + r.nextInt(3));
            } else if (idKind < 8) {
                c.add(nextMs[k] + "-*");
            } else if (idKind < 9) {
                c.add(Long.toString(nextMs[k]));
            } else {
                c.add(Math.max(0, nextMs[k] - 3) + "-" + r.nextInt(3)); // often too small
            }
            if (r.nextInt(3) > 0) {
                nextMs[k] += 1 + r.nextInt(3);
            }
            int fields = 1 + (r.nextInt(4) == 0 ? r.nextInt(4) : 0);
            boolean sameFields = r.nextInt(3) > 0;
            for (int i = 0; i < fields; i++) {
                c.add(sameFields ? "f" + i : "x" + r.nextInt(5));
                c.add(value(r));
            }
        } else if (p < 50) {
            c.add("XDEL");
            c.add(key);
            for (int i = 0, n = 1 + r.nextInt(3); i < n; i++) {
                c.add(r.nextLong(Math.max(1, nextMs[k])) + "-" + r.nextInt(3));
            }
        } else if (p < 56) {
            c.add("XTRIM");
            c.add(key);
            trimArgs(r, c, nextMs[k]);
        } else if (p < 66) {
            c.add(r.nextBoolean() ? "XRANGE" : "XREVRANGE");
            c.add(key);
            String lo = bound(r, nextMs[k], "-");
            String hi = bound(r, nextMs[k], "+");
            if (c.getFirst().equals("XREVRANGE")) {
                c.add(hi);
                c.add(lo);
            } else {
                c.add(lo);
                c.add(hi);
            }
            if (r.nextBoolean()) {
                c.add("COUNT");
                c.add(Integer.toString(r.nextInt(12) - 1));
            }
        } else if (p < 70) {
            c.addAll(List.of("XLEN", key));
        } else if (p < 75) {
            c.addAll(List.of("XINFO", "STREAM", key));
            if (k < 2 && r.nextBoolean()) { // FULL is deterministic only without groups (it shows delivery times)
                c.addAll(List.of("FULL", "COUNT", Integer.toString(r.nextInt(5))));
            }
        } else if (p < 77) {
            c.addAll(List.of("XSETID", key, (nextMs[k] + r.nextInt(3) - 1) + "-" + r.nextInt(4)));
            if (r.nextBoolean()) {
                c.addAll(List.of("ENTRIESADDED", Integer.toString(r.nextInt(400))));
            }
            if (r.nextInt(4) == 0) {
                c.addAll(List.of("MAXDELETEDID", r.nextInt((int) Math.min(Integer.MAX_VALUE, nextMs[k] + 1)) + "-0"));
            }
        } else {
            group(r, c, nextMs[2]);
        }
        return c;
    }

    private static void group(Random r, List<String> c, long nextMs) {
        String consumer = "c" + r.nextInt(3);
        int p = r.nextInt(100);
        if (p < 30) {
            c.addAll(List.of("XREADGROUP", "GROUP", "grp", consumer, "COUNT", Integer.toString(1 + r.nextInt(4))));
            if (r.nextInt(5) == 0) {
                c.add("NOACK");
            }
            c.addAll(List.of("STREAMS", "g", r.nextInt(4) == 0 ? "0" : ">"));
        } else if (p < 45) {
            c.addAll(List.of("XACK", "g", "grp"));
            for (int i = 0, n = 1 + r.nextInt(3); i < n; i++) {
                c.add(r.nextLong(Math.max(1, nextMs)) + "-" + r.nextInt(3));
            }
        } else if (p < 55) {
            c.addAll(List.of("XPENDING", "g", "grp"));
        } else if (p < 65) {
            c.addAll(List.of("XCLAIM", "g", "grp", consumer, "0"));
            for (int i = 0, n = 1 + r.nextInt(3); i < n; i++) {
                c.add(r.nextLong(Math.max(1, nextMs)) + "-" + r.nextInt(3));
            }
            c.add("JUSTID");
            if (r.nextInt(4) == 0) {
                c.add("FORCE");
            }
        } else if (p < 75) {
            c.addAll(List.of("XAUTOCLAIM", "g", "grp", consumer, "0", r.nextInt(3) == 0 ? "0" : r.nextLong(Math.max(1, nextMs)) + "-0",
                    "COUNT", Integer.toString(1 + r.nextInt(5)), "JUSTID"));
        } else if (p < 85) {
            c.addAll(List.of("XINFO", "GROUPS", "g"));
        } else if (p < 90) {
            c.addAll(List.of("XGROUP", "SETID", "g", "grp", r.nextInt(3) == 0 ? "$" : r.nextLong(Math.max(1, nextMs)) + "-0"));
        } else if (p < 93) {
            c.addAll(List.of("XGROUP", "DELCONSUMER", "g", "grp", consumer));
        } else {
            c.addAll(List.of("XREADGROUP", "GROUP", "grp", consumer, "STREAMS", "g", "0"));
        }
    }

    private static void trimArgs(Random r, List<String> c, long nextMs) {
        boolean maxLen = r.nextBoolean();
        c.add(maxLen ? "MAXLEN" : "MINID");
        int approx = r.nextInt(3);
        if (approx == 1) {
            c.add("~");
        } else if (approx == 2) {
            c.add("=");
        }
        c.add(maxLen ? Integer.toString(r.nextInt(60)) : r.nextLong(Math.max(1, nextMs)) + "-" + r.nextInt(2));
        if (approx == 1 && r.nextInt(3) == 0) {
            c.add("LIMIT");
            c.add(Integer.toString(r.nextInt(20)));
        }
    }

    private static String bound(Random r, long nextMs, String open) {
        int k = r.nextInt(6);
        if (k == 0) {
            return open;
        }
        String id = r.nextLong(Math.max(1, nextMs + 1)) + (r.nextBoolean() ? "" : "-" + r.nextInt(3));
        return k == 1 ? "(" + id : id;
    }

    private static String value(Random r) {
        return switch (r.nextInt(8)) {
            case 0 -> Long.toString(r.nextLong());
            case 1 -> Integer.toString(r.nextInt(300) - 150);
            case 2 -> Integer.toString(r.nextInt());
            case 3 -> "v".repeat(r.nextInt(80));
            case 4 -> "0" + r.nextInt(100);
            case 5 -> "";
            default -> "val" + r.nextInt(1000);
        };
    }

    private String check(long seed, int step, RawClient a, RawClient b, List<String> cmd) throws IOException {
        String[] args = cmd.toArray(new String[0]);
        String ra = new String(a.call(args), StandardCharsets.UTF_8);
        String rb = new String(b.call(args), StandardCharsets.UTF_8);
        if (!ra.equals(rb)) {
            assertEquals(rb, ra, "seed " + seed + " step " + step + ": " + String.join(" ", args) + " (after: " + last + ")");
        }
        last = String.join(" ", args);
        return ra;
    }
}
