package dev.spinel.server.diff;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Seeded random PFADD/PFCOUNT/PFMERGE/GET sent to Spinel and to a real redis-server, replies compared
 * byte for byte: GET compares the HLL strings themselves (sparse opcodes, dense registers, cached
 * cardinality). Elements come in batches of up to a few hundred, so the keys go from sparse to dense
 * and the estimator is exercised from a handful to a few hundred thousand elements; hll-sparse-max-bytes
 * changes now and then on both servers, and now and then a value read from one server is SET into both
 * (Redis's bytes used by Spinel and the other way round). A failure names the seed and the step.
 */
class HyperLogLogRandomizedDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    private static final String[] KEYS = {"h1", "h2", "h3", "h4", "h5"};
    private static final String[] SPARSE_MAX = {"3000", "3000", "3000", "100", "500", "10000", "0"};

    @Test
    void randomHyperLogLogCommands() throws IOException {
        long seed = Long.getLong("random.seed", 20261123L);
        int steps = Integer.getInteger("random.steps", 3000);
        Random rnd = new Random(seed);
        try (RawClient a = new RawClient(SERVERS.spinel().port()); RawClient b = new RawClient(SERVERS.redis().port())) {
            for (int step = 0; step < steps; step++) {
                if (rnd.nextInt(40) == 0) {
                    transplant(rnd, a, b, seed, step);
                    continue;
                }
                String[] c = next(rnd);
                String ra = str(a.call(c));
                String rb = str(b.call(c));
                String shown = c.length > 6 ? String.join(" ", List.of(c).subList(0, 6)) + " ..." : String.join(" ", c);
                assertEquals(rb, ra, "seed " + seed + " step " + step + ": " + shown);
            }
            String[] restore = {"CONFIG", "SET", "hll-sparse-max-bytes", "3000"};
            a.call(restore);
            b.call(restore);
        }
    }

    /**
     * A value written by one server, SET as a plain string into a key of both: what Redis wrote works in
     * Spinel and the other way round (the following commands compare their use).
     */
    private static void transplant(Random r, RawClient a, RawClient b, long seed, int step) throws IOException {
        String from = KEYS[r.nextInt(KEYS.length)];
        String to = KEYS[r.nextInt(KEYS.length)];
        byte[] reply = r.nextBoolean() ? b.call("GET", from) : a.call("GET", from);
        if (reply[0] != '$' || reply[1] == '-') {
            return;
        }
        int start = new String(reply, 0, Math.min(reply.length, 12), StandardCharsets.ISO_8859_1).indexOf("\r\n") + 2;
        byte[] value = Arrays.copyOfRange(reply, start, reply.length - 2);
        List<byte[]> set = List.of("SET".getBytes(StandardCharsets.US_ASCII), to.getBytes(StandardCharsets.US_ASCII), value);
        assertEquals(str(b.call(set)), str(a.call(set)), "seed " + seed + " step " + step + ": SET " + to + " <GET " + from + ">");
    }

    private static String[] next(Random r) {
        List<String> a = new ArrayList<>();
        String key = KEYS[r.nextInt(KEYS.length)];
        int kind = r.nextInt(20);
        if (kind < 9) {
            a.add("PFADD");
            a.add(key);
            // mostly small batches (sparse edits), sometimes large ones (growth past the sparse limit)
            int n = r.nextInt(10) == 0 ? r.nextInt(600) : r.nextInt(8);
            for (int i = 0; i < n; i++) {
                a.add(element(r));
            }
        } else if (kind < 12) {
            a.add("PFCOUNT");
            a.add(key);
        } else if (kind < 14) {
            a.add("PFCOUNT");
            int n = 2 + r.nextInt(3);
            for (int i = 0; i < n; i++) {
                a.add(KEYS[r.nextInt(KEYS.length)]);
            }
        } else if (kind < 16) {
            a.add("PFMERGE");
            a.add(key);
            int n = r.nextInt(3);
            for (int i = 0; i < n; i++) {
                a.add(KEYS[r.nextInt(KEYS.length)]);
            }
        } else if (kind < 19) {
            a.add("GET");
            a.add(key);
        } else if (r.nextInt(8) == 0) {
            a.addAll(List.of("CONFIG", "SET", "hll-sparse-max-bytes", SPARSE_MAX[r.nextInt(SPARSE_MAX.length)]));
        } else if (r.nextInt(4) == 0) {
            a.addAll(List.of("DEL", key));
        } else {
            a.addAll(List.of("PFDEBUG", "ENCODING", key));
        }
        return a.toArray(String[]::new);
    }

    /** Random bytes of every length 0..20 (all MurmurHash64A tails), from a range wide enough to stay fresh. */
    private static String element(Random r) {
        return switch (r.nextInt(3)) {
            case 0 -> Integer.toString(r.nextInt(1_000_000));
            case 1 -> "e:" + Long.toHexString(r.nextLong());
            default -> {
                StringBuilder sb = new StringBuilder();
                int n = r.nextInt(21);
                for (int i = 0; i < n; i++) {
                    sb.append((char) ('a' + r.nextInt(26)));
                }
                yield sb.toString();
            }
        };
    }

    private static String str(byte[] b) {
        return new String(b, StandardCharsets.ISO_8859_1);
    }
}
