package dev.spinel.persistence;

import dev.spinel.store.ValueType;
import dev.spinel.store.types.CollectionSettings;
import dev.spinel.store.types.HashValue;

import java.util.Arrays;
import java.util.List;

/**
 * Hashes. Written as {@code RDB_TYPE_HASH} (count, then field and value strings), which Redis 7.0 loads
 * into a listpack or a hashtable by its own thresholds. Read: that, {@code RDB_TYPE_HASH_LISTPACK}
 * (7.0), {@code RDB_TYPE_HASH_ZIPLIST} (3.2-6.2) and {@code RDB_TYPE_HASH_ZIPMAP} (2.x). A field seen
 * twice is refused, as Redis does.
 *
 * <p>{@link #snapshot} copies the pairs (alternating {@code byte[][]}) under the segment lock.
 * Stateless and thread-safe.
 */
public final class HashCodec implements ValueCodec {
    private final CollectionSettings settings;

    public HashCodec(CollectionSettings settings) {
        this.settings = settings;
    }

    @Override
    public ValueType type() {
        return ValueType.HASH;
    }

    @Override
    public int rdbType(Object snapshot) {
        return Rdb.TYPE_HASH;
    }

    @Override
    public int[] readTypes() {
        return new int[] {Rdb.TYPE_HASH, Rdb.TYPE_HASH_ZIPMAP, Rdb.TYPE_HASH_ZIPLIST, Rdb.TYPE_HASH_LISTPACK};
    }

    @Override
    public Object snapshot(Object value) {
        HashValue h = (HashValue) value;
        byte[][] out = new byte[(int) h.size() * 2][];
        int[] i = {0};
        h.forEach((k, ko, kl, v, vo, vl) -> {
            out[i[0]++] = Arrays.copyOfRange(k, ko, ko + kl);
            out[i[0]++] = Arrays.copyOfRange(v, vo, vo + vl);
        });
        return out;
    }

    @Override
    public void write(Object snapshot, RdbOutput out) {
        byte[][] pairs = (byte[][]) snapshot;
        out.writeLength(pairs.length / 2);
        for (byte[] s : pairs) {
            out.writeString(s);
        }
    }

    @Override
    public Object read(int rdbType, RdbInput in) {
        HashValue h = new HashValue(settings);
        switch (rdbType) {
            case Rdb.TYPE_HASH -> {
                long n = in.readLength();
                for (long i = 0; i < n; i++) {
                    set(h, in.readString(), in.readString());
                }
            }
            case Rdb.TYPE_HASH_ZIPMAP -> setAll(h, CompactBlobs.zipmap(in.readString()));
            case Rdb.TYPE_HASH_ZIPLIST -> setAll(h, CompactBlobs.ziplist(in.readString()));
            case Rdb.TYPE_HASH_LISTPACK -> setAll(h, CompactBlobs.listpack(in.readString()));
            default -> throw new RdbException("Unknown hash RDB type " + rdbType);
        }
        return h.size() == 0 ? null : h;
    }

    private static void setAll(HashValue h, List<byte[]> kv) {
        if ((kv.size() & 1) != 0) {
            throw new RdbException("Hash blob with an odd number of entries");
        }
        for (int i = 0; i < kv.size(); i += 2) {
            set(h, kv.get(i), kv.get(i + 1));
        }
    }

    private static void set(HashValue h, byte[] f, byte[] v) {
        if (!h.set(f, 0, f.length, v)) {
            throw new RdbException("Duplicate hash fields detected");
        }
    }
}
