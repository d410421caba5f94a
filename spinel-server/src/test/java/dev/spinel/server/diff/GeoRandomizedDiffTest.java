package dev.spinel.server.diff;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Seeded random geo sets (points worldwide, clustered, near the poles and across the antimeridian) and
 * random GEOSEARCH / GEOSEARCHSTORE / GEORADIUS* / GEODIST / GEOPOS / GEOHASH commands sent to Spinel and
 * to a real redis-server; replies compared byte for byte, so the boxes searched, the points kept at box
 * borders, the distances and their order must all be Redis's.
 *
 * <p>Some members share a position, so some distances tie. Redis orders ties by how it sorts: glibc's
 * stable merge sort, or its own unstable partial quicksort when COUNT keeps fewer than were found; Spinel
 * reproduces both, so even the order of ties is compared exactly. A failure names the seed and the step.
 */
class GeoRandomizedDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    private static final String[] UNITS = {"m", "km", "mi", "ft", "KM"};

    @Test
    void randomGeoCommands() throws IOException {
        long seed = Long.getLong("random.seed", 20261123L);
        int steps = Integer.getInteger("random.steps", 4000);
        Random rnd = new Random(seed);
        List<String> members = new ArrayList<>();
        try (RawClient a = new RawClient(SERVERS.spinel().port()); RawClient b = new RawClient(SERVERS.redis().port())) {
            a.call("FLUSHALL");
            b.call("FLUSHALL");
            // a big set (skip list) and a small one (listpack)
            String[][] at = new String[600][];
            for (int i = 0; i < 600; i++) {
                String m = "p" + i;
                members.add(m);
                // every 7th member shares the position of an earlier one: ties in distance
                at[i] = i % 7 == 6 ? at[i - 3] : new String[] {fmt(rnd, lon(rnd, i)), fmt(rnd, lat(rnd, i))};
                List<String> cmd = List.of("GEOADD", i < 40 ? "small" : "world", at[i][0], at[i][1], m);
                check(seed, -1, a, b, cmd);
            }
            int searches = 0;
            int found = 0;
            for (int step = 0; step < steps; step++) {
                List<String> cmd = next(rnd, members);
                String reply = check(seed, step, a, b, cmd);
                if (cmd.get(0).startsWith("GEOSEARCH") || cmd.get(0).startsWith("GEORADIUS")) {
                    searches++;
                    if (!reply.equals("*0\r\n") && !reply.equals(":0\r\n") && reply.charAt(0) != '-') {
                        found++;
                    }
                }
            }
            // the generator must keep the comparison meaningful: most searches find something
            assertTrue(found > searches / 3, found + " of " + searches + " searches found points");
        }
    }

    private static String check(long seed, int step, RawClient a, RawClient b, List<String> cmd) throws IOException {
        String[] args = cmd.toArray(new String[0]);
        String ra = new String(a.call(args), StandardCharsets.UTF_8);
        String rb = new String(b.call(args), StandardCharsets.UTF_8);
        if (!ra.equals(rb)) {
            String[] la = ra.split("\r\n", -1);
            String[] lb = rb.split("\r\n", -1);
            int i = 0;
            while (i < la.length && i < lb.length && la[i].equals(lb[i])) {
                i++;
            }
            String where = "first difference at line " + i + ": spinel `" + (i < la.length ? la[i] : "<end>")
                    + "`, redis `" + (i < lb.length ? lb[i] : "<end>") + "`";
            assertEquals(rb, ra, "seed " + seed + " step " + step + ": " + String.join(" ", args) + " (after: " + last
                    + ")\n" + where);
        }
        last = String.join(" ", args);
        return ra;
    }

    private static String last = "";

    // ---- positions ----

    private static final double LAT_MAX = 85.05112878;
    private static final double[][] CLUSTERS = {{13.36, 38.11}, {179.95, -16.5}, {-179.9, 65.0}, {0.0, 84.9},
            {-120.5, -84.7}, {2.35, 48.85}, {0, 0}};

    private static double lon(Random r, int i) {
        return switch (i % 5) {
            case 0, 1 -> r.nextDouble() * 360 - 180;
            case 2 -> (r.nextBoolean() ? 1 : -1) * (179 + r.nextDouble());   // near the antimeridian
            case 3 -> r.nextDouble() * 360 - 180;                            // (with a polar latitude)
            default -> clamp(CLUSTERS[i % CLUSTERS.length][0] + r.nextGaussian() * 0.3, 180);
        };
    }

    private static double lat(Random r, int i) {
        return switch (i % 5) {
            case 0, 1, 2 -> r.nextDouble() * 2 * LAT_MAX - LAT_MAX;
            case 3 -> (r.nextBoolean() ? 1 : -1) * (80 + r.nextDouble() * (LAT_MAX - 80)); // near the poles
            default -> clamp(CLUSTERS[i % CLUSTERS.length][1] + r.nextGaussian() * 0.3, LAT_MAX);
        };
    }

    private static double clamp(double v, double max) {
        return Math.max(-max, Math.min(max, v));
    }

    /** A coordinate with 4 to 8 decimals (truncated toward zero, so it stays within the valid range). */
    private static String fmt(Random r, double v) {
        int digits = 4 + r.nextInt(5);
        double scale = Math.pow(10, digits);
        double t = (v < 0 ? Math.ceil(v * scale) : Math.floor(v * scale)) / scale;
        return String.format(Locale.ROOT, "%." + digits + "f", t);
    }

    /** A search centre: some random, some exactly at a cluster, the poles' edge or the antimeridian. */
    private static String[] centre(Random r) {
        int k = r.nextInt(6);
        double lon;
        double lat;
        switch (k) {
            case 0 -> {
                double[] c = CLUSTERS[r.nextInt(CLUSTERS.length)];
                lon = clamp(c[0] + r.nextGaussian() * 0.2, 180);
                lat = clamp(c[1] + r.nextGaussian() * 0.2, LAT_MAX);
            }
            case 1 -> {
                lon = r.nextBoolean() ? 180 : -180;
                lat = r.nextDouble() * 2 * LAT_MAX - LAT_MAX;
            }
            case 2 -> {
                lon = r.nextDouble() * 360 - 180;
                lat = r.nextBoolean() ? LAT_MAX : -LAT_MAX;
            }
            default -> {
                lon = lon(r, r.nextInt(5));
                lat = lat(r, r.nextInt(5));
            }
        }
        return new String[] {fmt(r, lon), fmt(r, lat)};
    }

    /** A size in the unit: log-uniform from about 1 m to 20000 km. */
    private static String size(Random r, String unit) {
        double meters = Math.pow(10, r.nextDouble() * 7.3);
        double perUnit = switch (unit.toLowerCase(Locale.ROOT)) {
            case "km" -> 1000;
            case "mi" -> 1609.34;
            case "ft" -> 0.3048;
            default -> 1;
        };
        return String.format(Locale.ROOT, "%.3f", meters / perUnit);
    }

    private static String pick(Random r, String[] from) {
        return from[r.nextInt(from.length)];
    }

    private static String member(Random r, List<String> members) {
        return r.nextInt(30) == 0 ? "nope" : members.get(r.nextInt(members.size()));
    }

    private static String key(Random r) {
        int k = r.nextInt(20);
        return k == 0 ? "nokey" : k < 5 ? "small" : "world";
    }

    private static List<String> next(Random r, List<String> members) {
        List<String> a = new ArrayList<>();
        int kind = r.nextInt(20);
        switch (kind) {
            case 0 -> {
                // move a member (keeps positions distinct with probability ~1)
                int i = r.nextInt(members.size());
                a.addAll(List.of("GEOADD", i < 40 ? "small" : "world", fmt(r, lon(r, i + r.nextInt(5))), fmt(r, lat(r, i)), members.get(i)));
            }
            case 1 -> {
                a.addAll(List.of("GEODIST", key(r), member(r, members), member(r, members)));
                if (r.nextBoolean()) {
                    a.add(pick(r, UNITS));
                }
            }
            case 2 -> a.addAll(List.of("GEOPOS", key(r), member(r, members), member(r, members)));
            case 3 -> a.addAll(List.of("GEOHASH", key(r), member(r, members), member(r, members)));
            case 4, 5 -> {
                // a stored search, then the stored set
                String src = key(r);
                a.addAll(List.of("GEOSEARCHSTORE", "dst", src));
                searchArgs(r, members, a, false);
                if (r.nextBoolean()) {
                    a.add("STOREDIST");
                }
            }
            case 6 -> a.addAll(List.of("ZRANGE", "dst", "0", "-1", "WITHSCORES"));
            case 7, 8 -> {
                String unit = pick(r, UNITS);
                boolean byMember = r.nextBoolean();
                boolean ro = r.nextBoolean();
                String name = byMember ? "GEORADIUSBYMEMBER" : "GEORADIUS";
                a.add(ro ? name + "_RO" : name);
                a.add(key(r));
                if (byMember) {
                    a.add(member(r, members));
                } else {
                    Collections.addAll(a, centre(r));
                }
                a.add(size(r, unit));
                a.add(unit);
                boolean store = !ro && r.nextInt(4) == 0;
                options(r, a, !store);
                if (store) {
                    a.addAll(List.of(r.nextBoolean() ? "STORE" : "STOREDIST", "dst"));
                }
            }
            default -> {
                a.addAll(List.of("GEOSEARCH", key(r)));
                searchArgs(r, members, a, true);
            }
        }
        return a;
    }

    /** FROM..., BY... and the options, in a random order. */
    private static void searchArgs(Random r, List<String> members, List<String> a, boolean with) {
        List<List<String>> parts = new ArrayList<>();
        if (r.nextInt(3) == 0) {
            parts.add(List.of("FROMMEMBER", member(r, members)));
        } else {
            String[] c = centre(r);
            parts.add(List.of("FROMLONLAT", c[0], c[1]));
        }
        String unit = pick(r, UNITS);
        if (r.nextBoolean()) {
            parts.add(List.of("BYRADIUS", size(r, unit), unit));
        } else {
            parts.add(List.of("BYBOX", size(r, unit), size(r, unit), unit));
        }
        List<String> opts = new ArrayList<>();
        options(r, opts, with);
        parts.add(opts);
        Collections.shuffle(parts, r);
        for (List<String> p : parts) {
            a.addAll(p);
        }
    }

    /** [ASC|DESC] [COUNT n [ANY]] and, when allowed, some of WITHCOORD/WITHDIST/WITHHASH. */
    private static void options(Random r, List<String> a, boolean with) {
        int sort = r.nextInt(3);
        if (sort == 1) {
            a.add("ASC");
        } else if (sort == 2) {
            a.add("DESC");
        }
        if (r.nextBoolean()) {
            a.addAll(List.of("COUNT", Integer.toString(1 + r.nextInt(r.nextBoolean() ? 5 : 60))));
            if (r.nextInt(3) == 0) {
                a.add("ANY");
            }
        }
        if (with) {
            for (String w : new String[] {"WITHCOORD", "WITHDIST", "WITHHASH"}) {
                if (r.nextBoolean()) {
                    a.add(w);
                }
            }
        }
    }
}
