package dev.spinel.persistence;

import dev.spinel.protocol.Numbers;
import dev.spinel.store.ValueType;
import dev.spinel.store.types.SetLimits;
import dev.spinel.store.types.ZSetValue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * Sorted sets. Written as {@code RDB_TYPE_ZSET_2} (count, then member and binary little-endian double),
 * which Redis 7.0 loads as a listpack or a skip list by its own thresholds. Read: that,
 * {@code RDB_TYPE_ZSET} (scores as text), {@code RDB_TYPE_ZSET_LISTPACK} (7.0) and
 * {@code RDB_TYPE_ZSET_ZIPLIST} (3.2-6.2). Duplicate members and NaN scores are refused.
 *
 * <p>{@link #snapshot} copies members and scores under the segment lock. Stateless and thread-safe.
 */
public final class ZSetCodec implements ValueCodec {
    private final SetLimits limits;

    public ZSetCodec(SetLimits limits) {
        this.limits = limits;
    }

    /** Members and scores copied under the lock. */
    record Snap(byte[][] members, double[] scores) {
    }

    @Override
    public ValueType type() {
        return ValueType.ZSET;
    }

    @Override
    public int rdbType(Object snapshot) {
        return Rdb.TYPE_ZSET_2;
    }

    @Override
    public int[] readTypes() {
        return new int[] {Rdb.TYPE_ZSET, Rdb.TYPE_ZSET_2, Rdb.TYPE_ZSET_ZIPLIST, Rdb.TYPE_ZSET_LISTPACK};
    }

    @Override
    public Object snapshot(Object value) {
        ZSetValue z = (ZSetValue) value;
        int n = (int) z.size();
        byte[][] members = new byte[n][];
        double[] scores = new double[n];
        int i = 0;
        for (ZSetValue.Cursor c = z.cursor(0); c.valid() && i < n; c.next()) {
            int off = c.memberOffset();
            members[i] = Arrays.copyOfRange(c.memberArray(), off, off + c.memberLength());
            scores[i++] = c.score();
        }
        return new Snap(members, scores);
    }

    @Override
    public void write(Object snapshot, RdbOutput out) {
        Snap s = (Snap) snapshot;
        out.writeLength(s.members.length);
        // Highest score first, as Redis writes it (its loader then inserts at the head cheaply).
        for (int i = s.members.length - 1; i >= 0; i--) {
            out.writeString(s.members[i]);
            out.writeLongLE(Double.doubleToRawLongBits(s.scores[i]));
        }
    }

    @Override
    public Object read(int rdbType, RdbInput in) {
        ZSetValue z = null;
        switch (rdbType) {
            case Rdb.TYPE_ZSET, Rdb.TYPE_ZSET_2 -> {
                long n = in.readLength();
                for (long i = 0; i < n; i++) {
                    byte[] m = in.readString();
                    double score = rdbType == Rdb.TYPE_ZSET_2 ? Double.longBitsToDouble(in.readLongLE()) : textScore(in);
                    z = add(z, m, score);
                }
            }
            case Rdb.TYPE_ZSET_ZIPLIST, Rdb.TYPE_ZSET_LISTPACK -> {
                byte[] blob = in.readString();
                List<byte[]> e = rdbType == Rdb.TYPE_ZSET_LISTPACK ? CompactBlobs.listpack(blob) : CompactBlobs.ziplist(blob);
                if ((e.size() & 1) != 0) {
                    throw new RdbException("Sorted set blob with an odd number of entries");
                }
                for (int i = 0; i < e.size(); i += 2) {
                    double score;
                    try {
                        score = Numbers.parseDouble(e.get(i + 1));
                    } catch (NumberFormatException ex) {
                        throw new RdbException("Invalid sorted set score");
                    }
                    z = add(z, e.get(i), score);
                }
            }
            default -> throw new RdbException("Unknown sorted set RDB type " + rdbType);
        }
        return z;
    }

    /** Redis's {@code rdbLoadDoubleValue}: a length byte (253 NaN, 254 +inf, 255 -inf) then ASCII. */
    private static double textScore(RdbInput in) {
        int len = in.readByte();
        switch (len) {
            case 253:
                throw new RdbException("Zset with NAN score detected");
            case 254:
                return Double.POSITIVE_INFINITY;
            case 255:
                return Double.NEGATIVE_INFINITY;
            default:
                byte[] b = new byte[len];
                in.readFully(b, 0, len);
                try {
                    return Double.parseDouble(new String(b, StandardCharsets.US_ASCII));
                } catch (NumberFormatException e) {
                    throw new RdbException("Invalid sorted set score");
                }
        }
    }

    private ZSetValue add(ZSetValue z, byte[] m, double score) {
        if (Double.isNaN(score)) {
            throw new RdbException("Zset with NAN score detected");
        }
        if (z == null) {
            z = ZSetValue.createFor(m.length, limits);
        } else if (!Double.isNaN(z.score(m))) {
            throw new RdbException("Duplicate zset fields detected");
        }
        z.insert(m, score, limits);
        return z;
    }
}
