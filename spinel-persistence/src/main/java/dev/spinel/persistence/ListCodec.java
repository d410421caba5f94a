package dev.spinel.persistence;

import dev.spinel.store.ValueType;
import dev.spinel.store.types.CollectionSettings;
import dev.spinel.store.types.ListValue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Lists. Written as Redis 7.0 writes them: {@code RDB_TYPE_LIST_QUICKLIST_2}, a node count then per
 * node its container (2 = packed) and a listpack of at most 8 KiB (Redis's default
 * {@code list-max-listpack-size -2}; an element larger than that gets a node of its own, as in Redis).
 * Read: that, Redis 3.2-6.2's quicklist of ziplists, the 2.x ziplist and the plain linked-list form.
 *
 * <p>{@link #snapshot} copies the elements (a {@code byte[][]}) under the segment lock. Stateless and
 * thread-safe.
 */
public final class ListCodec implements ValueCodec {
    private static final int NODE_BYTES = 8192;
    private static final int CONTAINER_PLAIN = 1;
    private static final int CONTAINER_PACKED = 2;
    private final CollectionSettings settings;

    public ListCodec(CollectionSettings settings) {
        this.settings = settings;
    }

    @Override
    public ValueType type() {
        return ValueType.LIST;
    }

    @Override
    public int rdbType(Object snapshot) {
        return Rdb.TYPE_LIST_QUICKLIST_2;
    }

    @Override
    public int[] readTypes() {
        return new int[] {Rdb.TYPE_LIST, Rdb.TYPE_LIST_ZIPLIST, Rdb.TYPE_LIST_QUICKLIST, Rdb.TYPE_LIST_QUICKLIST_2};
    }

    @Override
    public Object snapshot(Object value) {
        ListValue l = (ListValue) value;
        byte[][] out = new byte[l.length()][];
        int[] i = {0};
        l.forEach(0, l.length() - 1, false, (b, off, len) -> {
            out[i[0]++] = Arrays.copyOfRange(b, off, off + len);
            return true;
        });
        return out;
    }

    @Override
    public void write(Object snapshot, RdbOutput out) {
        byte[][] elems = (byte[][]) snapshot;
        List<byte[]> nodes = new ArrayList<>();
        CompactBlobs.ListpackBuilder b = new CompactBlobs.ListpackBuilder();
        for (byte[] e : elems) {
            if (b.count() > 0 && b.sizeWith(e.length) > NODE_BYTES) {
                nodes.add(b.build());
                b = new CompactBlobs.ListpackBuilder();
            }
            b.add(e);
        }
        if (b.count() > 0) {
            nodes.add(b.build());
        }
        out.writeLength(nodes.size());
        for (byte[] lp : nodes) {
            out.writeLength(CONTAINER_PACKED);
            out.writeString(lp);
        }
    }

    @Override
    public Object read(int rdbType, RdbInput in) {
        ListValue l = new ListValue(settings);
        switch (rdbType) {
            case Rdb.TYPE_LIST -> {
                long n = in.readLength();
                for (long i = 0; i < n; i++) {
                    l.push(false, in.readString());
                }
            }
            case Rdb.TYPE_LIST_ZIPLIST -> pushAll(l, CompactBlobs.ziplist(in.readString()));
            case Rdb.TYPE_LIST_QUICKLIST -> {
                long n = in.readLength();
                for (long i = 0; i < n; i++) {
                    pushAll(l, CompactBlobs.ziplist(in.readString()));
                }
            }
            case Rdb.TYPE_LIST_QUICKLIST_2 -> {
                long n = in.readLength();
                for (long i = 0; i < n; i++) {
                    long container = in.readLength();
                    byte[] data = in.readString();
                    if (container == CONTAINER_PLAIN) {
                        if (data.length == 0) { // Redis refuses an empty plain node ("Bad data format")
                            throw new RdbException("Quicklist plain node of 0 bytes");
                        }
                        l.push(false, data);
                    } else if (container == CONTAINER_PACKED) {
                        pushAll(l, CompactBlobs.listpack(data));
                    } else {
                        throw new RdbException("Quicklist integrity check failed: unknown container " + container);
                    }
                }
            }
            default -> throw new RdbException("Unknown list RDB type " + rdbType);
        }
        return l.length() == 0 ? null : l;
    }

    private static void pushAll(ListValue l, List<byte[]> elems) {
        for (byte[] e : elems) {
            l.push(false, e);
        }
    }
}
