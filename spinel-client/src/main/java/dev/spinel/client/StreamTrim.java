package dev.spinel.client;

import java.util.ArrayList;
import java.util.List;

/**
 * How to trim a stream, for XTRIM and XADD: {@code MAXLEN|MINID [=|~] threshold [LIMIT count]}. Start
 * from {@link #maxlen} or {@link #minid}; {@link #approximate} lets the server trim whole nodes only
 * (faster, may keep a few more entries); {@link #limit} caps the entries evicted per call (approximate
 * trimming only). Immutable: each method returns a new instance.
 */
public final class StreamTrim {
    private final String strategy;
    private final String threshold;
    private final boolean approximate;
    private final long limit;

    private StreamTrim(String strategy, String threshold, boolean approximate, long limit) {
        this.strategy = strategy;
        this.threshold = threshold;
        this.approximate = approximate;
        this.limit = limit;
    }

    /** Keep at most {@code length} entries. */
    public static StreamTrim maxlen(long length) {
        return new StreamTrim("MAXLEN", Long.toString(length), false, -1);
    }

    /** Evict the entries whose ID is lower than {@code id}. */
    public static StreamTrim minid(String id) {
        return new StreamTrim("MINID", id, false, -1);
    }

    /** {@code ~}: trim whole nodes only. */
    public StreamTrim approximate() {
        return new StreamTrim(strategy, threshold, true, limit);
    }

    /** {@code LIMIT count}: evict at most {@code count} entries (0: no limit); requires {@link #approximate}. */
    public StreamTrim limit(long count) {
        return new StreamTrim(strategy, threshold, approximate, count);
    }

    /** The arguments, as the server reads them. */
    public Object[] encode() {
        List<Object> out = new ArrayList<>(5);
        out.add(strategy);
        out.add(approximate ? "~" : "=");
        out.add(threshold);
        if (limit >= 0) {
            out.add("LIMIT");
            out.add(limit);
        }
        return out.toArray();
    }
}
