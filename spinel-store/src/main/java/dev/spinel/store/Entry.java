package dev.spinel.store;

/**
 * One key of a {@link Segment}'s chained hash table: the next entry of the bucket, the access stamp, the key and
 * the value. A key of at most {@value InlineKeyEntry#MAX_LENGTH} bytes (the common case) is held in the entry's
 * own fields ({@link InlineKeyEntry}); a longer key is a {@code byte[]} ({@link ArrayKeyEntry}). Which one holds a
 * key depends only on its length, so a lookup compares like with like. The key's hash is not stored; resizes
 * recompute it ({@link #keyHash()}). Keys with a time to live are instances of the volatile subclasses, so keys
 * without one pay nothing for expiry (docs/memory.md).
 *
 * <p>The value is a {@code byte[]} for strings or one of the collection types; see {@link ValueType}. A short
 * string of a short key is held in the entry's own fields instead ({@link InlineStringEntry}, which has no value
 * reference at all: the reference is a field of {@link InlineKeyEntry.Ref} and {@link ArrayKeyEntry} only, read through
 * {@link #ref()}): {@link #value()} then returns a copy, and readers that only write the bytes somewhere use
 * {@link #isString()}, {@link #stringLength()} and {@link #copyString} without allocating.
 *
 * <p>Guarded by the lock of the segment that holds it; never read or written without it (the key is final
 * and may be read by a snapshot's thread after the entry is gone).
 */
public abstract sealed class Entry permits InlineKeyEntry, ArrayKeyEntry {
    Entry next;
    /**
     * Seconds-resolution access clock (LRU) or Redis's LFU pair, per the eviction policy, in the low 30
     * bits (sign-extended); the top 2 bits are the string's {@link #stringMark() mark}.
     */
    int access;

    /** The string value's encoding follows from its bytes ({@link StringEncoding#of(byte[])}). */
    public static final int STRING_DERIVED = 0;
    /** Redis's OBJ_ENCODING_RAW whatever the bytes: an APPEND, SETRANGE, SETBIT or BITFIELD wrote it. */
    public static final int STRING_RAW = 1;
    /** Never int-encoded (embstr or raw by length), as INCRBYFLOAT's createStringObject makes it. */
    public static final int STRING_NOT_INT = 2;
    /**
     * Encoding as derived, but a private object, never a shared integer: COPY's dupStringObject, or any value
     * stored while {@link Keyspace#sharedIntegers(boolean) shared integers} are off.
     */
    public static final int STRING_UNSHARED = 3;

    static final int STAMP_BITS = 30;
    private static final int STAMP_MASK = (1 << STAMP_BITS) - 1;
    /** The smallest stamp the 30 signed bits hold. */
    public static final int MIN_STAMP = -(1 << (STAMP_BITS - 1));

    Entry() {
    }

    /**
     * The value object this entry refers to, or {@code null} for a string held in the entry's own fields. The
     * reference is a field of the two classes that have one ({@link InlineKeyEntry.Ref}, {@link ArrayKeyEntry}), not of
     * every entry: an {@link InlineStringEntry} has none (8 bytes per key). Type tests, not a virtual call, so the
     * hot path's reads stay inlined whatever mix of the ~20 entry classes a table holds.
     */
    final Object ref() {
        if (this instanceof InlineStringEntry) {
            return null;
        }
        return this instanceof ArrayKeyEntry a ? a.value : ((InlineKeyEntry.Ref) this).value;
    }

    /** Sets the value of an entry that refers to one (never an {@link InlineStringEntry}: its value makes a new entry). */
    final void ref(Object value) {
        if (this instanceof ArrayKeyEntry a) {
            a.value = value;
        } else {
            ((InlineKeyEntry.Ref) this).value = value;
        }
    }

    /** The key's bytes: the entry's own array for a long key, a new copy for an inline one. */
    public abstract byte[] key();

    public abstract int keyLength();

    /**
     * The key's bytes without allocating: its first {@link #keyLength()} bytes written into {@code scratch}
     * (at least {@link InlineKeyEntry#MAX_LENGTH} long) for an inline key, the entry's own array for a long one.
     * For readers that stream every key (an RDB save), where {@link #key()} would make one array per key.
     */
    public abstract byte[] keyBytes(byte[] scratch);

    /** The longest key {@link #keyBytes} may write into a scratch array. */
    public static final int MAX_INLINE_KEY = InlineKeyEntry.MAX_LENGTH;

    /** The key's {@link KeyHash}, computed without allocating. */
    abstract int keyHash();

    /** Heap bytes of this entry object and of its key, for memory accounting. */
    abstract int footprint();

    /** A copy of this entry holding the same key, value and access stamp, with or without an expiry. */
    abstract Entry withExpire(long expireAt);

    /**
     * The value: a collection, or a string as a {@code byte[]} that the caller must not modify. For a string held
     * in the entry's fields it is a new copy on each call; the hot paths use {@link #copyString} instead.
     */
    public final Object value() {
        Object v = ref();
        if (v instanceof GrowableString g) {
            return g.toArray(); // never the array the next in-place write changes
        }
        if (v != null) {
            return v;
        }
        InlineStringEntry s = (InlineStringEntry) this;
        byte[] b = new byte[s.valueLength()];
        s.copyValue(b, 0);
        return b;
    }

    /**
     * The value as the entry holds it, for a snapshot to keep: the value object, or for a string held in the
     * entry's fields this entry itself (those fields are final: a new value makes a new entry). {@link ValueType#of}
     * knows such an entry as a string; read it with {@link #stringBytes}. A {@link GrowableString} changes in place:
     * a holder that keeps it past the lock must {@linkplain GrowableString#freeze() freeze} it.
     */
    public final Object storedValue() {
        Object v = ref();
        return v != null ? v : this;
    }

    /** The value's type, without copying a string held in the entry. */
    public final ValueType type() {
        Object v = ref();
        return v == null ? ValueType.STRING : ValueType.of(v);
    }

    /** True when the value is a string (held in the entry or as a {@code byte[]}). */
    public final boolean isString() {
        Object v = ref();
        return v == null || v instanceof byte[] || v instanceof GrowableString;
    }

    /** The string value changed in place, after {@link InPlaceStrings#grow} made it; under the segment's lock. */
    public final GrowableString growableString() {
        return (GrowableString) ref();
    }

    /** The string value's length in bytes; the value must be a string ({@link #isString()}). */
    public final int stringLength() {
        Object v = ref();
        if (v instanceof byte[] b) {
            return b.length;
        }
        return v != null ? ((GrowableString) v).length() : ((InlineStringEntry) this).valueLength();
    }

    /** Writes the string value's {@link #stringLength()} bytes to {@code dst} at {@code off}, without allocating. */
    public final void copyString(byte[] dst, int off) {
        Object v = ref();
        if (v instanceof byte[] b) {
            System.arraycopy(b, 0, dst, off, b.length);
        } else if (v != null) {
            GrowableString g = (GrowableString) v;
            System.arraycopy(g.array(), 0, dst, off, g.length());
        } else {
            ((InlineStringEntry) this).copyValue(dst, off);
        }
    }

    /** Byte {@code i} (0-255) of the string value. */
    public final int stringByte(int i) {
        Object v = ref();
        if (v instanceof byte[] b) {
            return b[i] & 0xff;
        }
        return v != null ? ((GrowableString) v).array()[i] & 0xff : ((InlineStringEntry) this).valueByte(i);
    }

    /**
     * The string value's bytes without allocating: its first {@link #stringLength()} bytes written into
     * {@code scratch} (at least {@link #MAX_INLINE_STRING} long) for a string held in the entry, the value's own
     * array otherwise (longer than the string for a {@link GrowableString}: use {@link #stringLength()}). For readers
     * that stream every value (an RDB save), under the lock.
     */
    public final byte[] stringBytes(byte[] scratch) {
        Object v = ref();
        if (v instanceof byte[] b) {
            return b;
        }
        if (v != null) {
            return ((GrowableString) v).array();
        }
        ((InlineStringEntry) this).copyValue(scratch, 0);
        return scratch;
    }

    /** The longest string {@link #stringBytes} may write into a scratch array. */
    public static final int MAX_INLINE_STRING = InlineStringEntry.MAX_LENGTH;

    /** Heap bytes of the value beyond {@link #footprint()} (none for a string held in the entry). */
    final long valueFootprint() {
        Object v = ref();
        return v == null ? 0 : Sizes.value(v);
    }

    public final int access() {
        return (access << (32 - STAMP_BITS)) >> (32 - STAMP_BITS);
    }

    /** Sets the access stamp (clamped to 30 signed bits), keeping the string mark. */
    public final void access(int stamp) {
        this.access = (access & ~STAMP_MASK) | (Math.max(MIN_STAMP, stamp) & STAMP_MASK);
    }

    /**
     * How Redis would encode this string value beyond what its bytes say: one of {@link #STRING_DERIVED},
     * {@link #STRING_RAW}, {@link #STRING_NOT_INT}, {@link #STRING_UNSHARED}. Kept in spare bits of the
     * access stamp so that it costs no memory; {@link Segment#insert} and {@link Segment#replaceValue} reset it.
     */
    public final int stringMark() {
        return access >>> STAMP_BITS;
    }

    public final void stringMark(int mark) {
        this.access = (access & STAMP_MASK) | (mark << STAMP_BITS);
    }

    /** Absolute expiry in Unix milliseconds, or -1 when the key has no time to live. */
    public long expireAt() {
        return -1;
    }

    /** Changes the expiry of an entry that has one (a volatile class); see {@link Segment#setExpire}. */
    void expireAt(long at) {
        throw new IllegalStateException("no time to live to change");
    }

    final boolean isExpired(long now) {
        long at = expireAt();
        return at >= 0 && at <= now;
    }
}
