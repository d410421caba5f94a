package dev.spinel.server.commands.geo;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.commands.common.NumberArgs;
import dev.spinel.server.commands.common.PartialSort;
import dev.spinel.server.commands.common.ZScores;
import dev.spinel.server.commands.key.SetKeys;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Notifications;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;
import dev.spinel.store.types.GeoHash;
import dev.spinel.store.types.ScoreRange;
import dev.spinel.store.types.SetLimits;
import dev.spinel.store.types.ZSetValue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * GEOSEARCH, GEOSEARCHSTORE, GEORADIUS, GEORADIUSBYMEMBER and their _RO forms: Redis's georadiusGeneric.
 * As Redis, a search visits the centre geohash box and its 8 neighbours at a step chosen from the
 * radius ({@link GeoHash#searchBoxes}), walks each box's score range, keeps the points inside the exact
 * shape, then sorts by distance as Redis does: with glibc's qsort, a stable merge sort (points at equal
 * distance stay in visiting order), or, when COUNT keeps fewer than were found, with Redis's unstable
 * partial quicksort, reproduced in {@link PartialSort} so that ties come out in Redis's order.
 */
final class GeoSearchCommands {
    private static final RedisError COUNT_POSITIVE = new RedisError("ERR COUNT must be > 0");
    private static final RedisError ANY_NEEDS_COUNT = new RedisError("ERR the ANY argument requires COUNT argument");
    private static final RedisError NO_MEMBER = new RedisError("ERR could not decode requested zset member");
    private static final RedisError NEED_RADIUS = new RedisError("ERR need numeric radius");
    private static final RedisError NEED_WIDTH = new RedisError("ERR need numeric width");
    private static final RedisError NEED_HEIGHT = new RedisError("ERR need numeric height");
    private static final RedisError NEGATIVE_RADIUS = new RedisError("ERR radius cannot be negative");
    private static final RedisError NEGATIVE_BOX = new RedisError("ERR height or width cannot be negative");

    private static final int COORDS = 1;
    private static final int MEMBER = 2;
    private static final int NOSTORE = 4;
    private static final int SEARCH = 8;
    private static final int SEARCHSTORE = 16;

    private static final int SORT_NONE = 0;
    private static final int SORT_ASC = 1;
    private static final int SORT_DESC = 2;

    private GeoSearchCommands() {
    }

    static void register(CommandTable t, SetLimits limits) {
        t.register("georadius", (s, a) -> search(s, a, 1, COORDS, limits));
        t.register("georadiusbymember", (s, a) -> search(s, a, 1, MEMBER, limits));
        t.register("georadius_ro", (s, a) -> search(s, a, 1, COORDS | NOSTORE, limits));
        t.register("georadiusbymember_ro", (s, a) -> search(s, a, 1, MEMBER | NOSTORE, limits));
        t.register("geosearch", (s, a) -> search(s, a, 1, SEARCH, limits));
        t.register("geosearchstore", (s, a) -> search(s, a, 2, SEARCH | SEARCHSTORE, limits));
    }

    /** A point found by a search; {@code dist} in meters until the reply converts it to the unit. */
    private record Point(byte[] member, double score, double lon, double lat, double dist) {
    }

    /** The mutable parts of a search as the argument parser fills them (Redis's GeoShape and flags). */
    private static final class Request {
        double lon;
        double lat;
        boolean box;
        double radius;
        double width;
        double height;
        double conversion;
        int storeKey = -1;
        boolean storeDist;

        GeoHash.Shape shape() {
            return new GeoHash.Shape(lon, lat, box, radius, width, height, conversion);
        }
    }

    // GEORADIUS key longitude latitude radius M|KM|FT|MI [WITHCOORD] [WITHDIST] [WITHHASH] [COUNT count [ANY]]
    //           [ASC|DESC] [STORE key | STOREDIST key]
    // GEORADIUSBYMEMBER key member radius M|KM|FT|MI ...same options...   (_RO forms: no STORE/STOREDIST)
    // GEOSEARCH key FROMMEMBER member | FROMLONLAT longitude latitude  BYRADIUS radius unit | BYBOX width height unit
    //           [ASC|DESC] [COUNT count [ANY]] [WITHCOORD] [WITHDIST] [WITHHASH]
    // GEOSEARCHSTORE destination source ...GEOSEARCH's FROM/BY/ASC/DESC/COUNT... [STOREDIST]
    static void search(Session s, Args a, int srcArg, int flags, SetLimits limits) {
        try {
            lockKeys(s, a, srcArg, flags);
            run(s, a, srcArg, flags, limits);
        } finally {
            s.locks().unlock();
        }
    }

    /** The source key and every argument that may name a destination (harmless if it turns out not to). */
    private static void lockKeys(Session s, Args a, int srcArg, int flags) {
        var locks = s.locks();
        locks.add(s.db(), a.buffer(), a.offset(srcArg), a.length(srcArg));
        if ((flags & SEARCHSTORE) != 0) {
            locks.add(s.db(), a.buffer(), a.offset(1), a.length(1));
        } else if ((flags & (SEARCH | NOSTORE)) == 0) {
            for (int i = srcArg + 1; i + 1 < a.count(); i++) {
                if (a.is(i, "STORE") || a.is(i, "STOREDIST")) {
                    locks.add(s.db(), a.buffer(), a.offset(i + 1), a.length(i + 1));
                }
            }
        }
        locks.lock();
    }

    private static void run(Session s, Args a, int srcArg, int flags, SetLimits limits) {
        ZSetValue z = SetKeys.zset(SetKeys.read(s, a, srcArg));
        Request r = new Request();
        int base;
        if ((flags & COORDS) != 0) {
            base = 6;
            double[] xy = GeoCommands.lonLat(a, 2);
            r.lon = xy[0];
            r.lat = xy[1];
            radius(a, 4, r);
        } else if ((flags & MEMBER) != 0 && z == null) {
            base = 5; // no source: parse the options only, to choose the reply
        } else if ((flags & MEMBER) != 0) {
            base = 5;
            fromMember(z, a, 2, r);
            radius(a, 3, r);
        } else {
            base = 2;
            if ((flags & SEARCHSTORE) != 0) {
                base = 3;
                r.storeKey = 1;
            }
        }
        boolean withDist = false;
        boolean withHash = false;
        boolean withCoord = false;
        boolean fromMember = false;
        boolean fromLonLat = false;
        boolean byRadius = false;
        boolean byBox = false;
        boolean any = false;
        int sort = SORT_NONE;
        long count = 0;
        int remaining = a.count() - base;
        for (int k = 0; k < remaining; k++) {
            int i = base + k;
            boolean search = (flags & SEARCH) != 0;
            boolean storeAllowed = (flags & (NOSTORE | SEARCH)) == 0;
            if (a.is(i, "WITHDIST")) {
                withDist = true;
            } else if (a.is(i, "WITHHASH")) {
                withHash = true;
            } else if (a.is(i, "WITHCOORD")) {
                withCoord = true;
            } else if (a.is(i, "ANY")) {
                any = true;
            } else if (a.is(i, "ASC")) {
                sort = SORT_ASC;
            } else if (a.is(i, "DESC")) {
                sort = SORT_DESC;
            } else if (a.is(i, "COUNT") && k + 1 < remaining) {
                count = NumberArgs.parseLong(a, i + 1);
                if (count <= 0) {
                    throw COUNT_POSITIVE;
                }
                k++;
            } else if (a.is(i, "STORE") && k + 1 < remaining && storeAllowed) {
                r.storeKey = i + 1;
                r.storeDist = false;
                k++;
            } else if (a.is(i, "STOREDIST") && k + 1 < remaining && storeAllowed) {
                r.storeKey = i + 1;
                r.storeDist = true;
                k++;
            } else if (a.is(i, "STOREDIST") && search && (flags & SEARCHSTORE) != 0) {
                r.storeDist = true;
            } else if (a.is(i, "FROMMEMBER") && k + 1 < remaining && search && !fromLonLat) {
                if (z != null) {
                    fromMember(z, a, i + 1, r);
                }
                fromMember = true;
                k++;
            } else if (a.is(i, "FROMLONLAT") && k + 2 < remaining && search && !fromMember) {
                double[] xy = GeoCommands.lonLat(a, i + 1);
                r.lon = xy[0];
                r.lat = xy[1];
                fromLonLat = true;
                k += 2;
            } else if (a.is(i, "BYRADIUS") && k + 2 < remaining && search && !byBox) {
                radius(a, i + 1, r);
                byRadius = true;
                k += 2;
            } else if (a.is(i, "BYBOX") && k + 3 < remaining && search && !byRadius) {
                box(a, i + 1, r);
                byBox = true;
                k += 3;
            } else {
                throw Errors.SYNTAX;
            }
        }
        if (r.storeKey >= 0 && (withDist || withHash || withCoord)) {
            throw new RedisError("ERR " + ((flags & SEARCHSTORE) != 0 ? "GEOSEARCHSTORE" : "STORE option in GEORADIUS")
                    + " is not compatible with WITHDIST, WITHHASH and WITHCOORD options");
        }
        if ((flags & SEARCH) != 0 && !(fromMember || fromLonLat)) {
            throw new RedisError("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for " + a.string(0));
        }
        if ((flags & SEARCH) != 0 && !(byRadius || byBox)) {
            throw new RedisError("ERR exactly one of BYRADIUS and BYBOX can be specified for " + a.string(0));
        }
        if (any && count == 0) {
            throw ANY_NEEDS_COUNT;
        }
        ReplyBuffer out = s.out();
        if (z == null) {
            if (r.storeKey >= 0) {
                if (SetKeys.storeResult(s, a, r.storeKey, null, Notifications.ZSET, "")) {
                    s.dirty(1);
                }
                out.integer(0);
            } else {
                out.array(0);
            }
            return;
        }
        if (count != 0 && sort == SORT_NONE && !any) {
            sort = SORT_ASC;
        }
        GeoHash.Shape shape = r.shape();
        List<Point> found = collect(z, shape, any ? count : 0);
        if (found.isEmpty() && r.storeKey < 0) {
            out.array(0);
            return;
        }
        int returned = (int) (count == 0 || found.size() < count ? found.size() : count);
        if (sort != SORT_NONE) {
            Comparator<Point> asc = (p, q) -> p.dist > q.dist ? 1 : p.dist == q.dist ? 0 : -1;
            Comparator<Point> cmp = sort == SORT_ASC ? asc : (p, q) -> -asc.compare(p, q);
            if (returned == found.size()) {
                found.sort(cmp); // glibc's qsort: a stable merge sort
            } else {
                Point[] arr = found.toArray(new Point[0]);
                PartialSort.sort(arr, cmp, 0, returned - 1);
                found = Arrays.asList(arr);
            }
        }
        if (r.storeKey < 0) {
            int options = (withDist ? 1 : 0) + (withHash ? 1 : 0) + (withCoord ? 1 : 0);
            out.array(returned);
            for (int i = 0; i < returned; i++) {
                Point p = found.get(i);
                if (options > 0) {
                    out.array(options + 1);
                }
                out.bulk(p.member);
                if (withDist) {
                    GeoCommands.distance(out, p.dist / r.conversion);
                }
                if (withHash) {
                    out.integer((long) p.score);
                }
                if (withCoord) {
                    out.array(2);
                    GeoCommands.coordinate(out, p.lon);
                    GeoCommands.coordinate(out, p.lat);
                }
            }
            return;
        }
        ZSetValue dst = null;
        if (returned > 0) {
            dst = returned > limits.zsetMaxListpackEntries() ? ZSetValue.createSkiplist() : ZSetValue.createListpack();
            for (int i = 0; i < returned; i++) {
                Point p = found.get(i);
                dst.insert(p.member, r.storeDist ? p.dist / r.conversion : p.score, limits);
            }
        }
        boolean changed = SetKeys.storeResult(s, a, r.storeKey, dst, Notifications.ZSET,
                (flags & SEARCH) != 0 ? "geosearchstore" : "georadiusstore");
        s.dirty(returned > 0 ? returned : changed ? 1 : 0);
        out.integer(returned);
    }

    /** The centre from a member's position, or "could not decode requested zset member". */
    private static void fromMember(ZSetValue z, Args a, int i, Request r) {
        double score = z.score(a.buffer(), a.offset(i), a.length(i));
        if (Double.isNaN(score)) {
            throw NO_MEMBER;
        }
        double[] xy = GeoHash.decodeScore(score);
        r.lon = xy[0];
        r.lat = xy[1];
    }

    // radius unit (extractDistanceOrReply)
    private static void radius(Args a, int i, Request r) {
        double d = ZScores.weight(a, i, NEED_RADIUS);
        if (d < 0) {
            throw NEGATIVE_RADIUS;
        }
        r.radius = d;
        r.conversion = GeoCommands.unit(a, i + 1);
        r.box = false;
    }

    // width height unit (extractBoxOrReply)
    private static void box(Args a, int i, Request r) {
        double w = ZScores.weight(a, i, NEED_WIDTH);
        double h = ZScores.weight(a, i + 1, NEED_HEIGHT);
        if (h < 0 || w < 0) {
            throw NEGATIVE_BOX;
        }
        r.width = w;
        r.height = h;
        r.conversion = GeoCommands.unit(a, i + 2);
        r.box = true;
    }

    /**
     * The points inside the shape, box by box in Redis's order (membersOfAllNeighbors), each box's members
     * in score order; with {@code limit > 0} (ANY) it stops once that many are found.
     */
    private static List<Point> collect(ZSetValue z, GeoHash.Shape shape, long limit) {
        int[] step = new int[1];
        long[] boxes = GeoHash.searchBoxes(shape, step);
        List<Point> found = new ArrayList<>();
        int lastProcessed = 0;
        for (int i = 0; i < boxes.length; i++) {
            if (boxes[i] < 0) {
                continue;
            }
            // a huge radius can make neighbours coincide: Redis skips a box equal to the last one searched
            if (lastProcessed != 0 && boxes[i] == boxes[lastProcessed]) {
                continue;
            }
            if (!found.isEmpty() && limit > 0 && found.size() >= limit) {
                break;
            }
            double[] range = GeoHash.scoreRange(boxes[i], step[0]);
            inRange(z, range[0], range[1], shape, found, limit);
            lastProcessed = i;
        }
        return found;
    }

    /** Appends the members with min <= score < max that are inside the shape (geoGetPointsInRange). */
    private static void inRange(ZSetValue z, double min, double max, GeoHash.Shape shape, List<Point> found, long limit) {
        ScoreRange range = new ScoreRange(min, false, max, true);
        ZSetValue.Cursor c = z.cursor(z.countBelow(range));
        for (; c.valid(); c.next()) {
            double score = c.score();
            if (!range.belowMax(score)) {
                break;
            }
            double[] xy = GeoHash.decodeScore(score);
            double dist = shape.distanceIfInside(xy[0], xy[1]);
            if (dist >= 0) {
                int off = c.memberOffset();
                found.add(new Point(Arrays.copyOfRange(c.memberArray(), off, off + c.memberLength()), score, xy[0], xy[1], dist));
            }
            if (!found.isEmpty() && limit > 0 && found.size() >= limit) {
                break;
            }
        }
    }
}
