package dev.spinel.store.types;

import dev.spinel.store.TypedValue;
import dev.spinel.store.ValueType;

import java.util.Arrays;
import java.util.random.RandomGenerator;

/**
 * A Redis hash. Encodings as Redis 7.0:
 * <ul>
 *   <li>{@code listpack}: fields and values alternating, each {@code [varint length][bytes]}, in one
 *       {@code byte[]} in insertion order (no object per pair); used while the hash has at most
 *       {@code hash-max-listpack-entries} fields and no field or value written by HSET/HSETNX/HMSET
 *       is longer than {@code hash-max-listpack-value} bytes;</li>
 *   <li>{@code hashtable}: a {@link BytesMap}. A hash never converts back.</li>
 * </ul>
 *
 * <p>Not thread-safe: guarded by the lock of the segment holding the key.
 */
public final class HashValue implements TypedValue {
    private final CollectionSettings settings;
    private byte[] lp;
    private int used;
    private int pairs;
    private BytesMap map;

    public HashValue(CollectionSettings settings) {
        this.settings = settings;
        this.lp = new byte[32];
    }

    private HashValue(HashValue o) {
        this.settings = o.settings;
        if (o.lp != null) {
            this.lp = Arrays.copyOf(o.lp, Math.max(32, o.used));
            this.used = o.used;
            this.pairs = o.pairs;
        } else {
            this.map = o.map.copy();
        }
    }

    @Override
    public ValueType type() {
        return ValueType.HASH;
    }

    @Override
    public String encoding() {
        return lp != null ? "listpack" : "hashtable";
    }

    @Override
    public long memoryUsage() {
        return lp != null ? 40 + 16 + lp.length : 40 + map.memoryUsage();
    }

    @Override
    public HashValue copy() {
        return new HashValue(this);
    }

    @Override
    public long size() {
        return lp != null ? pairs : map.size();
    }

    // ------------------------------------------------------------ lookups

    /** The value of a field (a copy in the compact encoding), or {@code null}. */
    public byte[] get(byte[] buf, int off, int len) {
        if (lp != null) {
            int p = findCompact(buf, off, len);
            if (p < 0) {
                return null;
            }
            int vl = Varint.read(lp, p);
            int vs = p + Varint.len(lp, p);
            return Arrays.copyOfRange(lp, vs, vs + vl);
        }
        BytesMap.Node n = map.find(buf, off, len);
        return n == null ? null : n.value;
    }

    /** Visits the value of a field in place (no copy); returns false when the field is absent. */
    public boolean visitValue(byte[] buf, int off, int len, ElementVisitor v) {
        if (lp != null) {
            int p = findCompact(buf, off, len);
            if (p < 0) {
                return false;
            }
            v.visit(lp, p + Varint.len(lp, p), Varint.read(lp, p));
            return true;
        }
        BytesMap.Node n = map.find(buf, off, len);
        if (n == null) {
            return false;
        }
        v.visit(n.value, 0, n.value.length);
        return true;
    }

    public boolean contains(byte[] buf, int off, int len) {
        return lp != null ? findCompact(buf, off, len) >= 0 : map.find(buf, off, len) != null;
    }

    /** Length of a field's value, or 0 when absent (HSTRLEN). */
    public int valueLength(byte[] buf, int off, int len) {
        if (lp != null) {
            int p = findCompact(buf, off, len);
            return p < 0 ? 0 : Varint.read(lp, p);
        }
        BytesMap.Node n = map.find(buf, off, len);
        return n == null ? 0 : n.value.length;
    }

    // ------------------------------------------------------------ updates

    /**
     * Converts to the hashtable encoding if a field or value of this length may not live in the
     * compact one (Redis's {@code hashTypeTryConversion}); {@link #set} applies it too.
     */
    public void checkLength(int len) {
        if (lp != null && len > settings.hashMaxListpackValue()) {
            convert();
        }
    }

    /** Sets a field; returns true when it is new. Converts once the field count passes the limit. */
    public boolean set(byte[] f, int foff, int flen, byte[] v, int voff, int vlen) {
        checkLength(flen); // as Redis 7.0's hashTypeSet: a long field or value converts the hash
        checkLength(vlen);
        if (lp == null) {
            return map.put(Arrays.copyOfRange(f, foff, foff + flen), Arrays.copyOfRange(v, voff, voff + vlen));
        }
        int p = findCompact(f, foff, flen);
        if (p >= 0) {
            deleteAt(p);
            insertAt(p, v, voff, vlen);
            return false;
        }
        insertAt(used, f, foff, flen);
        insertAt(used, v, voff, vlen);
        pairs++;
        if (pairs > settings.hashMaxListpackEntries()) {
            convert();
        }
        return true;
    }

    public boolean set(byte[] f, int foff, int flen, byte[] v) {
        return set(f, foff, flen, v, 0, v.length);
    }

    public boolean delete(byte[] buf, int off, int len) {
        if (lp == null) {
            return map.remove(buf, off, len);
        }
        int p = findCompact(buf, off, len);
        if (p < 0) {
            return false;
        }
        deleteAt(p); // value
        int fieldStart = p - (len + Varint.size(len));
        deleteAt(fieldStart);
        pairs--;
        return true;
    }

    // ------------------------------------------------------------ iteration

    /** Visits every pair (insertion order in the compact encoding). */
    public void forEach(PairVisitor v) {
        if (lp == null) {
            map.forEach(v);
            return;
        }
        int p = 0;
        while (p < used) {
            int fl = Varint.read(lp, p);
            int fs = p + Varint.len(lp, p);
            int q = fs + fl;
            int vl = Varint.read(lp, q);
            int vs = q + Varint.len(lp, q);
            v.visit(lp, fs, fl, lp, vs, vl);
            p = vs + vl;
        }
    }

    /**
     * One HSCAN step: the compact encoding returns everything at once with cursor 0, as Redis does;
     * the hashtable visits buckets from the reverse-binary {@code cursor}. Returns the next cursor.
     */
    public long scan(long cursor, int count, PairVisitor v) {
        if (lp != null) {
            forEach(v);
            return 0;
        }
        return map.scan(cursor, count, v);
    }

    /** All pairs as {@code [f0, v0, f1, v1, ...]} copies (HRANDFIELD's sampling works on these). */
    public byte[][] toArray() {
        byte[][] out = new byte[(int) size() * 2][];
        int[] i = {0};
        forEach((k, ko, kl, val, vo, vl) -> {
            out[i[0]++] = Arrays.copyOfRange(k, ko, ko + kl);
            out[i[0]++] = Arrays.copyOfRange(val, vo, vo + vl);
        });
        return out;
    }

    /** A random pair {@code [field, value]} of a non-empty hash. */
    public byte[][] randomPair(RandomGenerator rnd) {
        if (lp == null) {
            BytesMap.Node n = map.random(rnd);
            return new byte[][] {n.key, n.value};
        }
        int pick = rnd.nextInt(pairs);
        int p = 0;
        for (int i = 0; i < pick * 2; i++) {
            p += Varint.len(lp, p) + Varint.read(lp, p);
        }
        int fl = Varint.read(lp, p);
        int fs = p + Varint.len(lp, p);
        int q = fs + fl;
        int vl = Varint.read(lp, q);
        int vs = q + Varint.len(lp, q);
        return new byte[][] {Arrays.copyOfRange(lp, fs, fs + fl), Arrays.copyOfRange(lp, vs, vs + vl)};
    }

    // ------------------------------------------------------------ compact internals

    /** Offset of the value entry of the field, or -1. */
    private int findCompact(byte[] buf, int off, int len) {
        int p = 0;
        while (p < used) {
            int fl = Varint.read(lp, p);
            int fs = p + Varint.len(lp, p);
            int q = fs + fl;
            if (fl == len && Arrays.equals(lp, fs, q, buf, off, off + len)) {
                return q;
            }
            p = q + Varint.len(lp, q) + Varint.read(lp, q);
        }
        return -1;
    }

    private void insertAt(int pos, byte[] buf, int off, int len) {
        int need = Varint.size(len) + len;
        if (used + need > lp.length) {
            lp = Arrays.copyOf(lp, Math.max(used + need, lp.length + (lp.length >> 1)));
        }
        System.arraycopy(lp, pos, lp, pos + need, used - pos);
        int p = Varint.write(lp, pos, len);
        System.arraycopy(buf, off, lp, p, len);
        used += need;
    }

    private void deleteAt(int pos) {
        int n = Varint.len(lp, pos) + Varint.read(lp, pos);
        System.arraycopy(lp, pos + n, lp, pos, used - pos - n);
        used -= n;
    }

    private void convert() {
        BytesMap m = new BytesMap();
        forEach((k, ko, kl, v, vo, vl) -> m.put(Arrays.copyOfRange(k, ko, ko + kl), Arrays.copyOfRange(v, vo, vo + vl)));
        map = m;
        lp = null;
        used = 0;
        pairs = 0;
    }
}
