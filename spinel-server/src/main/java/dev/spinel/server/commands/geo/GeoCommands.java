package dev.spinel.server.commands.geo;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.LongDouble;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.commands.common.ZScores;
import dev.spinel.server.commands.key.SetKeys;
import dev.spinel.server.commands.zset.ZSetCommands;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;
import dev.spinel.store.types.GeoHash;
import dev.spinel.store.types.SetLimits;
import dev.spinel.store.types.ZSetValue;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;

/**
 * Geo commands (Redis's geo.c) on a sorted set whose scores are 52-bit geohashes ({@link GeoHash}):
 * GEOADD (a ZADD of encoded positions, logged as that ZADD like Redis), GEOPOS, GEODIST, GEOHASH. The
 * searches (GEOSEARCH, GEOSEARCHSTORE, GEORADIUS*) are in {@link GeoSearchCommands}. Each command holds
 * its key's stripe lock for its whole run.
 */
public final class GeoCommands {
    static final RedisError UNIT = new RedisError("ERR unsupported unit provided. please use M, KM, FT, MI");
    private static final byte[] ZADD = "zadd".getBytes(StandardCharsets.US_ASCII);

    private GeoCommands() {
    }

    public static void register(CommandTable t, SetLimits limits) {
        t.register("geoadd", (s, a) -> geoadd(s, a, limits));
        t.register("geopos", GeoCommands::geopos);
        t.register("geodist", GeoCommands::geodist);
        t.register("geohash", GeoCommands::geohash);
        GeoSearchCommands.register(t, limits);
    }

    // GEOADD key [NX | XX] [CH] longitude latitude member [longitude latitude member ...]
    static void geoadd(Session s, Args a, SetLimits limits) {
        boolean nx = false;
        boolean xx = false;
        int first = 2;
        for (; first < a.count(); first++) {
            if (a.is(first, "NX")) {
                nx = true;
            } else if (a.is(first, "XX")) {
                xx = true;
            } else if (!a.is(first, "CH")) {
                break;
            }
        }
        if ((a.count() - first) % 3 != 0 || (xx && nx)) {
            throw Errors.SYNTAX;
        }
        int elements = (a.count() - first) / 3;
        byte[][] argv = new byte[first + elements * 2][];
        argv[0] = ZADD;
        for (int i = 1; i < first; i++) {
            argv[i] = a.copy(i);
        }
        for (int k = 0; k < elements; k++) {
            double[] xy = lonLat(a, first + 3 * k);
            long bits = GeoHash.score(xy[0], xy[1]);
            argv[first + 2 * k] = Long.toString(bits).getBytes(StandardCharsets.US_ASCII);
            argv[first + 2 * k + 1] = a.copy(first + 3 * k + 2);
        }
        s.propagateAs(argv); // as Redis, which rewrites GEOADD into this ZADD and runs it
        ZSetCommands.zadd(s, Args.of(argv), limits);
    }

    /** A longitude/latitude pair at arguments i, i+1 (extractLongLatOrReply). */
    static double[] lonLat(Args a, int i) {
        double lon = ZScores.score(a, i);
        double lat = ZScores.score(a, i + 1);
        if (lon < GeoHash.LONG_MIN || lon > GeoHash.LONG_MAX || lat < GeoHash.LAT_MIN || lat > GeoHash.LAT_MAX) {
            throw new RedisError("ERR invalid longitude,latitude pair " + fixed(lon, 6) + "," + fixed(lat, 6));
        }
        return new double[] {lon, lat};
    }

    /** C's {@code printf("%.<digits>f")}: the exact binary value rounded half-even, sign kept on zero. */
    static String fixed(double d, int digits) {
        if (Double.isInfinite(d)) {
            return d > 0 ? "inf" : "-inf";
        }
        String abs = new BigDecimal(Math.abs(d)).setScale(digits, RoundingMode.HALF_EVEN).toPlainString();
        return (Double.doubleToRawLongBits(d) < 0 ? "-" : "") + abs;
    }

    /** The unit's size in meters (extractUnitOrReply). */
    static double unit(Args a, int i) {
        if (a.is(i, "M")) {
            return 1;
        } else if (a.is(i, "KM")) {
            return 1000;
        } else if (a.is(i, "FT")) {
            return 0.3048;
        } else if (a.is(i, "MI")) {
            return 1609.34;
        }
        throw UNIT;
    }

    /** A distance as Redis replies it: a bulk string with 4 decimals. */
    static void distance(ReplyBuffer out, double d) {
        out.bulk(fixed(d, 4).getBytes(StandardCharsets.US_ASCII));
    }

    /** A coordinate as addReplyHumanLongDouble: %.17Lf without trailing zeros; a double in RESP3. */
    static void coordinate(ReplyBuffer out, double d) {
        String text = LongDouble.formatHuman(new BigDecimal(d));
        if (out.resp3()) {
            out.raw(("," + text + "\r\n").getBytes(StandardCharsets.US_ASCII));
        } else {
            out.bulk(text.getBytes(StandardCharsets.US_ASCII));
        }
    }

    // GEOPOS key [member [member ...]]
    static void geopos(Session s, Args a) {
        withScores(s, a, (out, score) -> {
            if (Double.isNaN(score)) {
                out.nullArray();
            } else {
                double[] xy = GeoHash.decodeScore(score);
                out.array(2);
                coordinate(out, xy[0]);
                coordinate(out, xy[1]);
            }
        });
    }

    // GEOHASH key [member [member ...]]
    static void geohash(Session s, Args a) {
        withScores(s, a, (out, score) -> {
            if (Double.isNaN(score)) {
                out.nullBulk();
            } else {
                out.bulk(GeoHash.standardHash(score).getBytes(StandardCharsets.US_ASCII));
            }
        });
    }

    private interface ScoreReply {
        void reply(ReplyBuffer out, double scoreOrNaN);
    }

    /** An array with one element per member argument (from 2), each built from the member's score. */
    private static void withScores(Session s, Args a, ScoreReply each) {
        try {
            SetKeys.lockKeys(s, a, 1, 2, -1);
            ZSetValue z = SetKeys.zset(SetKeys.read(s, a, 1));
            ReplyBuffer out = s.out();
            out.array(a.count() - 2);
            for (int j = 2; j < a.count(); j++) {
                each.reply(out, z == null ? Double.NaN : z.score(a.buffer(), a.offset(j), a.length(j)));
            }
        } finally {
            s.locks().unlock();
        }
    }

    // GEODIST key member1 member2 [M | KM | FT | MI]
    static void geodist(Session s, Args a) {
        double toMeters = 1;
        if (a.count() == 5) {
            toMeters = unit(a, 4);
        } else if (a.count() > 5) {
            throw Errors.SYNTAX;
        }
        try {
            SetKeys.lockKeys(s, a, 1, 2, -1);
            ZSetValue z = SetKeys.zset(SetKeys.read(s, a, 1));
            ReplyBuffer out = s.out();
            double s1 = z == null ? Double.NaN : z.score(a.buffer(), a.offset(2), a.length(2));
            double s2 = z == null ? Double.NaN : z.score(a.buffer(), a.offset(3), a.length(3));
            if (Double.isNaN(s1) || Double.isNaN(s2)) {
                out.nullBulk();
                return;
            }
            double[] p = GeoHash.decodeScore(s1);
            double[] q = GeoHash.decodeScore(s2);
            distance(out, GeoHash.distance(p[0], p[1], q[0], q[1]) / toMeters);
        } finally {
            s.locks().unlock();
        }
    }
}
