package dev.spinel.store.types;

/**
 * Redis's geohash arithmetic (geohash.c, geohash_helper.c), reproduced bit for bit so that scores,
 * decoded coordinates, distances and the boxes a search visits are the ones Redis computes.
 *
 * <p>A position is a 52-bit score: 26 bits of latitude (range -85.05112878..85.05112878) in the even
 * positions interleaved with 26 bits of longitude (-180..180) in the odd positions. A hash of step
 * {@code s} is the top {@code 2s} of those bits. All {@code long}s here are C's {@code uint64_t}
 * (unsigned shifts), and every double expression keeps Redis's order of operations.
 *
 * <p>Stateless and thread-safe.
 */
public final class GeoHash {
    public static final double LAT_MIN = -85.05112878;
    public static final double LAT_MAX = 85.05112878;
    public static final double LONG_MIN = -180;
    public static final double LONG_MAX = 180;
    static final int STEP_MAX = 26;
    static final double EARTH_RADIUS_IN_METERS = 6372797.560856;
    private static final double MERCATOR_MAX = 20037726.37;
    private static final double D_R = Math.PI / 180.0;

    private GeoHash() {
    }

    /** The cell of a hash: its step, and its latitude/longitude bounds. */
    record Area(long bits, int step, double latMin, double latMax, double lonMin, double lonMax) {
    }

    /** Encodes a position in the given ranges at {@code step}; -1 when out of range (geohashEncode fails). */
    static long encode(double lonMin, double lonMax, double latMin, double latMax, double lon, double lat, int step) {
        if (lon > LONG_MAX || lon < LONG_MIN || lat > LAT_MAX || lat < LAT_MIN) {
            return -1;
        }
        if (lat < latMin || lat > latMax || lon < lonMin || lon > lonMax) {
            return -1;
        }
        double latOffset = (lat - latMin) / (latMax - latMin);
        double lonOffset = (lon - lonMin) / (lonMax - lonMin);
        latOffset *= (double) (1L << step);
        lonOffset *= (double) (1L << step);
        return interleave(toUint32(latOffset), toUint32(lonOffset));
    }

    /** The 26-step hash of a valid position in Redis's (WGS84, clipped) ranges. */
    static long encode(double lon, double lat, int step) {
        return encode(LONG_MIN, LONG_MAX, LAT_MIN, LAT_MAX, lon, lat, step);
    }

    /** A GEOADD score: the 26-step hash aligned to 52 bits. */
    public static long score(double lon, double lat) {
        return encode(lon, lat, STEP_MAX);
    }

    /** C's {@code (uint32_t)} of a non-negative double below 2^32. */
    private static long toUint32(double d) {
        return ((long) d) & 0xFFFFFFFFL;
    }

    /** C's {@code (uint64_t)} of a double as x86-64 gcc converts it (cvttsd2si, with its 2^63 split). */
    static long toUint64(double d) {
        double two63 = 9223372036854775808.0;
        if (d < two63) {
            return d < -two63 || Double.isNaN(d) ? Long.MIN_VALUE : (long) d;
        }
        double t = d - two63;
        long v = t >= two63 ? Long.MIN_VALUE : (long) t;
        return v ^ Long.MIN_VALUE;
    }

    private static final long[] B = {0x5555555555555555L, 0x3333333333333333L, 0x0F0F0F0F0F0F0F0FL,
            0x00FF00FF00FF00FFL, 0x0000FFFF0000FFFFL, 0x00000000FFFFFFFFL};

    /** x's bits in the even positions, y's in the odd. */
    static long interleave(long x, long y) {
        x = (x | (x << 16)) & B[4];
        y = (y | (y << 16)) & B[4];
        x = (x | (x << 8)) & B[3];
        y = (y | (y << 8)) & B[3];
        x = (x | (x << 4)) & B[2];
        y = (y | (y << 4)) & B[2];
        x = (x | (x << 2)) & B[1];
        y = (y | (y << 2)) & B[1];
        x = (x | (x << 1)) & B[0];
        y = (y | (y << 1)) & B[0];
        return x | (y << 1);
    }

    /** The inverse: even-position bits in the low 32 bits, odd-position bits in the high 32. */
    static long deinterleave(long v) {
        long x = v;
        long y = v >>> 1;
        x = (x | (x >>> 0)) & B[0];
        y = (y | (y >>> 0)) & B[0];
        x = (x | (x >>> 1)) & B[1];
        y = (y | (y >>> 1)) & B[1];
        x = (x | (x >>> 2)) & B[2];
        y = (y | (y >>> 2)) & B[2];
        x = (x | (x >>> 4)) & B[3];
        y = (y | (y >>> 4)) & B[3];
        x = (x | (x >>> 8)) & B[4];
        y = (y | (y >>> 8)) & B[4];
        x = (x | (x >>> 16)) & B[5];
        y = (y | (y >>> 16)) & B[5];
        return x | (y << 32);
    }

    /** The cell of {@code bits} at {@code step} in the given ranges (geohashDecode). */
    static Area decode(double lonMin, double lonMax, double latMin, double latMax, long bits, int step) {
        long sep = deinterleave(bits);
        double latScale = latMax - latMin;
        double lonScale = lonMax - lonMin;
        long ilat = sep & 0xFFFFFFFFL;
        long ilon = sep >>> 32;
        double div = (double) (1L << step);
        return new Area(bits, step,
                latMin + (ilat * 1.0 / div) * latScale,
                latMin + (((ilat + 1) & 0xFFFFFFFFL) * 1.0 / div) * latScale,
                lonMin + (ilon * 1.0 / div) * lonScale,
                lonMin + (((ilon + 1) & 0xFFFFFFFFL) * 1.0 / div) * lonScale);
    }

    static Area decode(long bits, int step) {
        return decode(LONG_MIN, LONG_MAX, LAT_MIN, LAT_MAX, bits, step);
    }

    /** The position a sorted-set score stands for: {longitude, latitude}, the centre of its cell, clamped. */
    public static double[] decodeScore(double score) {
        Area a = decode(toUint64(score), STEP_MAX);
        double lon = (a.lonMin + a.lonMax) / 2;
        lon = Math.max(LONG_MIN, Math.min(LONG_MAX, lon));
        double lat = (a.latMin + a.latMax) / 2;
        lat = Math.max(LAT_MIN, Math.min(LAT_MAX, lat));
        return new double[] {lon, lat};
    }

    private static final String ALPHABET = "0123456789bcdefghjkmnpqrstuvwxyz";

    /** GEOHASH's 11-character standard geohash of a score (re-encoded in the -90..90 latitude range). */
    public static String standardHash(double score) {
        double[] xy = decodeScore(score);
        long bits = encode(-180, 180, -90, 90, xy[0], xy[1], STEP_MAX);
        if (bits < 0) {
            bits = 0; // geohashEncode leaves the bits zeroed when it fails
        }
        char[] out = new char[11];
        for (int i = 0; i < 11; i++) {
            int idx = i == 10 ? 0 : (int) ((bits >>> (52 - (i + 1) * 5)) & 0x1f);
            out[i] = ALPHABET.charAt(idx);
        }
        return new String(out);
    }

    // ---- neighbours (geohash_move_x / geohash_move_y) ----

    static long moveX(long bits, int step, int d) {
        if (d == 0) {
            return bits;
        }
        long x = bits & 0xaaaaaaaaaaaaaaaaL;
        long y = bits & 0x5555555555555555L;
        long zz = 0x5555555555555555L >>> (64 - step * 2);
        if (d > 0) {
            x = x + (zz + 1);
        } else {
            x = x | zz;
            x = x - (zz + 1);
        }
        x &= 0xaaaaaaaaaaaaaaaaL >>> (64 - step * 2);
        return x | y;
    }

    static long moveY(long bits, int step, int d) {
        if (d == 0) {
            return bits;
        }
        long x = bits & 0xaaaaaaaaaaaaaaaaL;
        long y = bits & 0x5555555555555555L;
        long zz = 0xaaaaaaaaaaaaaaaaL >>> (64 - step * 2);
        if (d > 0) {
            y = y + (zz + 1);
        } else {
            y = y | zz;
            y = y - (zz + 1);
        }
        y &= 0x5555555555555555L >>> (64 - step * 2);
        return x | y;
    }

    // ---- distances (geohash_helper.c as in Redis 7.0: plain haversine) ----

    private static double degRad(double ang) {
        return ang * D_R;
    }

    private static double radDeg(double ang) {
        return ang / D_R;
    }

    /** Great-circle distance in meters between two {longitude, latitude} points. */
    public static double distance(double lon1d, double lat1d, double lon2d, double lat2d) {
        double lat1r = degRad(lat1d);
        double lon1r = degRad(lon1d);
        double lat2r = degRad(lat2d);
        double lon2r = degRad(lon2d);
        double u = CMath.sin((lat2r - lat1r) / 2);
        double v = CMath.sin((lon2r - lon1r) / 2);
        return 2.0 * EARTH_RADIUS_IN_METERS * CMath.asin(Math.sqrt(u * u + CMath.cos(lat1r) * CMath.cos(lat2r) * v * v));
    }

    /** geohashEstimateStepsByRadius. */
    static int estimateSteps(double rangeMeters, double lat) {
        if (rangeMeters == 0) {
            return 26;
        }
        int step = 1;
        while (rangeMeters < MERCATOR_MAX) {
            rangeMeters *= 2;
            step++;
        }
        step -= 2;
        if (lat > 66 || lat < -66) {
            step--;
            if (lat > 80 || lat < -80) {
                step--;
            }
        }
        if (step < 1) {
            step = 1;
        }
        if (step > 26) {
            step = 26;
        }
        return step;
    }

    /**
     * The search shape: centre, radius (circle) or width/height (box) in the request's unit, and the unit's
     * size in meters.
     */
    public record Shape(double lon, double lat, boolean box, double radius, double width, double height, double conversion) {
        /** {minLon, minLat, maxLon, maxLat} of the area to cover (geohashBoundingBox). */
        double[] bounds() {
            double h = conversion * (box ? height / 2 : radius);
            double w = conversion * (box ? width / 2 : radius);
            double latDelta = radDeg(h / EARTH_RADIUS_IN_METERS);
            double lonDeltaTop = radDeg(w / EARTH_RADIUS_IN_METERS / CMath.cos(degRad(lat + latDelta)));
            double lonDeltaBottom = radDeg(w / EARTH_RADIUS_IN_METERS / CMath.cos(degRad(lat - latDelta)));
            boolean south = lat < 0;
            return new double[] {south ? lon - lonDeltaBottom : lon - lonDeltaTop, lat - latDelta,
                    south ? lon + lonDeltaBottom : lon + lonDeltaTop, lat + latDelta};
        }

        /** The distance in meters from the centre if the point is inside the shape, else -1. */
        public double distanceIfInside(double x, double y) {
            if (!box) {
                double d = distance(lon, lat, x, y);
                return d > radius * conversion ? -1 : d;
            }
            double lonDistance = distance(x, y, lon, y);
            double latDistance = distance(x, y, x, lat);
            if (lonDistance > width * conversion / 2 || latDistance > height * conversion / 2) {
                return -1;
            }
            return distance(lon, lat, x, y);
        }
    }

    /**
     * The boxes to search, in Redis's order: centre, N, S, E, W, NE, NW, SE, SW (geohashCalculateAreasByShapeWGS84).
     * A box excluded as useless is {@code null}. All boxes have the returned step.
     */
    public static long[] searchBoxes(Shape shape, int[] stepOut) {
        double[] b = shape.bounds();
        double minLon = b[0];
        double minLat = b[1];
        double maxLon = b[2];
        double maxLat = b[3];
        double radiusMeters = shape.box
                ? Math.sqrt((shape.width / 2) * (shape.width / 2) + (shape.height / 2) * (shape.height / 2))
                : shape.radius;
        radiusMeters *= shape.conversion;
        int steps = estimateSteps(radiusMeters, shape.lat);
        long hash = encode(shape.lon, shape.lat, steps);
        long[] n = neighbors(hash, steps);
        boolean decrease = false;
        Area north = decode(n[1], steps);
        Area south = decode(n[2], steps);
        Area east = decode(n[3], steps);
        Area west = decode(n[4], steps);
        if (north.latMax < maxLat || south.latMin > minLat || east.lonMax < maxLon || west.lonMin > minLon) {
            decrease = true;
        }
        if (steps > 1 && decrease) {
            steps--;
            hash = encode(shape.lon, shape.lat, steps);
            n = neighbors(hash, steps);
        }
        Area area = decode(hash, steps);
        boolean[] zero = new boolean[9];
        if (steps >= 2) {
            if (area.latMin < minLat) {
                zero[2] = zero[8] = zero[7] = true; // south, south-west, south-east
            }
            if (area.latMax > maxLat) {
                zero[1] = zero[5] = zero[6] = true; // north, north-east, north-west
            }
            if (area.lonMin < minLon) {
                zero[4] = zero[8] = zero[6] = true; // west, south-west, north-west
            }
            if (area.lonMax > maxLon) {
                zero[3] = zero[7] = zero[5] = true; // east, south-east, north-east
            }
        }
        for (int i = 0; i < 9; i++) {
            if (zero[i]) {
                n[i] = -1;
            }
        }
        stepOut[0] = steps;
        return n;
    }

    /** {self, N, S, E, W, NE, NW, SE, SW}: the order membersOfAllNeighbors visits them in. */
    private static long[] neighbors(long h, int step) {
        return new long[] {h,
                moveY(h, step, 1),
                moveY(h, step, -1),
                moveX(h, step, 1),
                moveX(h, step, -1),
                moveY(moveX(h, step, 1), step, 1),
                moveY(moveX(h, step, -1), step, 1),
                moveY(moveX(h, step, 1), step, -1),
                moveY(moveX(h, step, -1), step, -1)};
    }

    /** {min inclusive, max exclusive} scores of the members inside a box (scoresOfGeoHashBox). */
    public static double[] scoreRange(long bits, int step) {
        int shift = 52 - step * 2;
        return new double[] {unsignedToDouble(bits << shift), unsignedToDouble((bits + 1) << shift)};
    }

    private static double unsignedToDouble(long v) {
        if (v >= 0) {
            return (double) v;
        }
        double d = (double) ((v >>> 1) | (v & 1));
        return d * 2.0;
    }
}
