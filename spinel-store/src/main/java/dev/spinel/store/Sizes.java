package dev.spinel.store;

/** Heap size estimates with compact object headers (8-byte header, 12-byte array header). */
final class Sizes {
    private Sizes() {
    }

    static long array(int length) {
        return (12 + length + 7) & ~7L;
    }

    static long value(Object v) {
        if (v instanceof byte[] b) {
            return array(b.length);
        }
        if (v instanceof GrowableString g) {
            return g.footprint();
        }
        if (v instanceof TypedValue t) {
            return t.memoryUsage();
        }
        return 16;
    }
}
