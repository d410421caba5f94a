package dev.spinel.client;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The options of {@code GEOSEARCH key FROMMEMBER member | FROMLONLAT lon lat  BYRADIUS r unit |
 * BYBOX w h unit [ASC | DESC] [COUNT n [ANY]] [WITHCOORD] [WITHDIST] [WITHHASH]}. Start from
 * {@link #fromMember} or {@link #fromLonLat}, then choose a shape. Immutable: each method returns a new
 * instance. Missing or conflicting options are sent as given and the server answers with its error.
 */
public final class GeoSearchArgs<V> {
    private final V member;
    private final double[] centre;
    private final Object[] shape;
    private final String order;
    private final long count;
    private final boolean any;
    private final int with; // 1 WITHCOORD, 2 WITHDIST, 4 WITHHASH

    private GeoSearchArgs(V member, double[] centre, Object[] shape, String order, long count, boolean any, int with) {
        this.member = member;
        this.centre = centre;
        this.shape = shape;
        this.order = order;
        this.count = count;
        this.any = any;
        this.with = with;
    }

    /** Around the position of a member of the set. */
    public static <V> GeoSearchArgs<V> fromMember(V member) {
        return new GeoSearchArgs<>(member, null, null, null, 0, false, 0);
    }

    /** Around a position. */
    public static <V> GeoSearchArgs<V> fromLonLat(double longitude, double latitude) {
        return new GeoSearchArgs<>(null, new double[] {longitude, latitude}, null, null, 0, false, 0);
    }

    /** Members within {@code radius} of the centre. */
    public GeoSearchArgs<V> byRadius(double radius, GeoUnit unit) {
        return new GeoSearchArgs<>(member, centre, new Object[] {"BYRADIUS", radius, unit}, order, count, any, with);
    }

    /** Members within a {@code width} × {@code height} box centred on the centre. */
    public GeoSearchArgs<V> byBox(double width, double height, GeoUnit unit) {
        return new GeoSearchArgs<>(member, centre, new Object[] {"BYBOX", width, height, unit}, order, count, any, with);
    }

    /** Nearest first. */
    public GeoSearchArgs<V> asc() {
        return new GeoSearchArgs<>(member, centre, shape, "ASC", count, any, with);
    }

    /** Farthest first. */
    public GeoSearchArgs<V> desc() {
        return new GeoSearchArgs<>(member, centre, shape, "DESC", count, any, with);
    }

    /** At most {@code n} members (the nearest ones unless {@link #desc}). */
    public GeoSearchArgs<V> count(long n) {
        return new GeoSearchArgs<>(member, centre, shape, order, n, false, with);
    }

    /** At most {@code n} members, the first found rather than the nearest (COUNT n ANY). */
    public GeoSearchArgs<V> countAny(long n) {
        return new GeoSearchArgs<>(member, centre, shape, order, n, true, with);
    }

    public GeoSearchArgs<V> withCoord() {
        return new GeoSearchArgs<>(member, centre, shape, order, count, any, with | 1);
    }

    public GeoSearchArgs<V> withDist() {
        return new GeoSearchArgs<>(member, centre, shape, order, count, any, with | 2);
    }

    public GeoSearchArgs<V> withHash() {
        return new GeoSearchArgs<>(member, centre, shape, order, count, any, with | 4);
    }

    /**
     * The option words as command arguments: strings, a {@link Long} count, and the member as
     * {@code memberEncoder} encodes it.
     */
    public Object[] encode(Function<V, Object> memberEncoder) {
        List<Object> out = new ArrayList<>(12);
        if (member != null) {
            out.add("FROMMEMBER");
            out.add(memberEncoder.apply(member));
        } else if (centre != null) {
            out.add("FROMLONLAT");
            out.add(num(centre[0]));
            out.add(num(centre[1]));
        }
        if (shape != null) {
            for (Object o : shape) {
                out.add(o instanceof GeoUnit u ? u.name() : o instanceof Double d ? num(d) : o);
            }
        }
        if (order != null) {
            out.add(order);
        }
        if (count > 0) {
            out.add("COUNT");
            out.add(count);
            if (any) {
                out.add("ANY");
            }
        }
        if ((with & 1) != 0) {
            out.add("WITHCOORD");
        }
        if ((with & 2) != 0) {
            out.add("WITHDIST");
        }
        if ((with & 4) != 0) {
            out.add("WITHHASH");
        }
        return out.toArray();
    }

    /** A double as Redis reads it (integers without a fraction). */
    static String num(double d) {
        if (Double.isInfinite(d)) {
            return d > 0 ? "inf" : "-inf";
        }
        if (d == Math.rint(d) && Math.abs(d) < 1e15) {
            return Long.toString((long) d);
        }
        return Double.toString(d);
    }
}
