package dev.spinel.store;

/**
 * The write path of strings changed in place ({@link GrowableString}): makes the entry's value a string it owns,
 * long enough for the write, and keeps the segment's memory accounting in step. A value it may not change (an
 * immutable {@code byte[]}, a string held in the entry's fields, a {@linkplain GrowableString#freeze() frozen} one a
 * snapshot holds) is copied once, with spare room; the next writes then touch only the bytes they change.
 *
 * <p>Thread-safety: stateless; the caller holds the segment's lock, and has looked the entry up through the
 * segment ({@link Segment#get}), so any armed snapshot has already captured (and frozen) the old value.
 */
public final class InPlaceStrings {
    private InPlaceStrings() {
    }

    /**
     * Makes {@code e}'s string value an owned {@link GrowableString} of at least {@code length} bytes (zero padded,
     * never shortened) and marks it Redis's raw encoding; returns the entry now holding the key (a new one when the
     * string was held in the entry's fields). Write the bytes into {@link Entry#growableString()}{@code .array()}.
     * The entry must hold a string.
     */
    public static Entry grow(Segment seg, Entry e, int length) {
        Object v = e.ref();
        if (v instanceof GrowableString g && !g.frozen()) {
            seg.adjustMemory(g.growTo(length));
        } else {
            int old = e.stringLength();
            byte[] src;
            if (v instanceof GrowableString g) {
                src = g.array();
            } else if (v instanceof byte[] b) {
                src = b;
            } else {
                src = new byte[old];
                e.copyString(src, 0);
            }
            e = seg.replaceValue(e, new GrowableString(src, old, length));
        }
        e.stringMark(Entry.STRING_RAW);
        return e;
    }
}
