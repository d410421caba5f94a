package dev.spinel.persistence;

import dev.spinel.store.ValueType;
import dev.spinel.store.types.SetLimits;
import dev.spinel.store.types.SetValue;

import java.util.List;

/**
 * Sets. Written as {@code RDB_TYPE_SET} (count then members), which Redis 7.0 loads as an intset or a
 * hashtable by its own thresholds. Read: that and {@code RDB_TYPE_SET_INTSET}. A member seen twice is
 * refused, as Redis does ("Duplicate set members detected").
 *
 * <p>{@link #snapshot} copies the members under the segment lock. Stateless and thread-safe.
 */
public final class SetCodec implements ValueCodec {
    private final SetLimits limits;

    public SetCodec(SetLimits limits) {
        this.limits = limits;
    }

    @Override
    public ValueType type() {
        return ValueType.SET;
    }

    @Override
    public int rdbType(Object snapshot) {
        return Rdb.TYPE_SET;
    }

    @Override
    public int[] readTypes() {
        return new int[] {Rdb.TYPE_SET, Rdb.TYPE_SET_INTSET};
    }

    @Override
    public Object snapshot(Object value) {
        SetValue s = (SetValue) value;
        byte[][] out = new byte[(int) s.size()][];
        int i = 0;
        for (int p = s.first(); p >= 0; p = s.next(p)) {
            out[i++] = s.member(p).clone();
        }
        return out;
    }

    @Override
    public void write(Object snapshot, RdbOutput out) {
        byte[][] members = (byte[][]) snapshot;
        out.writeLength(members.length);
        for (byte[] m : members) {
            out.writeString(m);
        }
    }

    @Override
    public Object read(int rdbType, RdbInput in) {
        SetValue s = null;
        if (rdbType == Rdb.TYPE_SET) {
            long n = in.readLength();
            for (long i = 0; i < n; i++) {
                s = add(s, in.readString());
            }
        } else if (rdbType == Rdb.TYPE_SET_INTSET) {
            List<byte[]> members = CompactBlobs.intset(in.readString());
            for (byte[] m : members) {
                s = add(s, m);
            }
        } else {
            throw new RdbException("Unknown set RDB type " + rdbType);
        }
        return s;
    }

    private SetValue add(SetValue s, byte[] m) {
        if (s == null) {
            s = SetValue.createFor(m, 0, m.length);
        }
        if (!s.add(m, limits)) {
            throw new RdbException("Duplicate set members detected");
        }
        return s;
    }
}
