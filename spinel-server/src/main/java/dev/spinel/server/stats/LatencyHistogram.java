package dev.spinel.server.stats;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.BiConsumer;

/**
 * One command's latency histogram (Redis 7.0's {@code latency-tracking}): the layout of the HdrHistogram Redis
 * keeps per command (values from 1 ns to 1 s, 2 significant digits: 256 sub-buckets, then buckets of doubling
 * resolution), so that LATENCY HISTOGRAM's buckets and INFO latencystats' percentiles come out as Redis's do.
 * Durations are recorded as Redis records them: whole microseconds, in nanoseconds, clamped to [1 ns, 1 s].
 *
 * <p>Thread-safety: like {@link LoopCounter}: an event loop ({@link LoopCounter.Owner}) counts into its own
 * array with plain stores; other threads into an atomic array; readers sum them all (figures may lag a little).
 * The arrays are allocated on the first record, so commands never called cost nothing.
 */
public final class LatencyHistogram {
    private static final int SUB_BUCKET_HALF_MAGNITUDE = 7;
    private static final int SUB_BUCKET_HALF = 1 << SUB_BUCKET_HALF_MAGNITUDE;
    private static final long MIN_VALUE = 1;
    private static final long MAX_VALUE = 1_000_000_000;
    /** Buckets covering 1 ns .. 1 s: 256 << 22 is the first value past 2^30 - 1. */
    private static final int BUCKETS = 23;
    static final int COUNTS = (BUCKETS + 1) * SUB_BUCKET_HALF;
    private static final VarHandle CELL = MethodHandles.arrayElementVarHandle(long[].class);

    private final AtomicReferenceArray<long[]> perLoop = new AtomicReferenceArray<>(LoopCounter.SLOTS);
    private volatile AtomicLongArray others;
    /** Counts at the last reset, subtracted from what the arrays hold (owners' stores are never overwritten). */
    private volatile long[] origin;

    /** Records one call that took {@code micros} microseconds. */
    public void record(long micros) {
        long ns = Math.min(MAX_VALUE, Math.max(MIN_VALUE, micros * 1000));
        int index = countsIndex(ns);
        if (Thread.currentThread() instanceof LoopCounter.Owner owner && owner.counterSlot() >= 0) {
            int slot = owner.counterSlot();
            long[] mine = perLoop.get(slot);
            if (mine == null) {
                mine = new long[COUNTS];
                perLoop.set(slot, mine);
            }
            CELL.setOpaque(mine, index, (long) CELL.getOpaque(mine, index) + 1);
            return;
        }
        AtomicLongArray o = others;
        if (o == null) {
            synchronized (this) {
                if (others == null) {
                    others = new AtomicLongArray(COUNTS);
                }
                o = others;
            }
        }
        o.incrementAndGet(index);
    }

    /** Forgets every call (CONFIG RESETSTAT). */
    public void reset() {
        origin = raw();
    }

    /** The counts per index since the last reset. */
    private long[] counts() {
        long[] c = raw();
        long[] o = origin;
        if (o != null) {
            for (int i = 0; i < c.length; i++) {
                c[i] -= o[i];
            }
        }
        return c;
    }

    private long[] raw() {
        long[] c = new long[COUNTS];
        for (int s = 0; s < perLoop.length(); s++) {
            long[] a = perLoop.get(s);
            if (a != null) {
                for (int i = 0; i < COUNTS; i++) {
                    c[i] += (long) CELL.getOpaque(a, i);
                }
            }
        }
        AtomicLongArray o = others;
        if (o != null) {
            for (int i = 0; i < COUNTS; i++) {
                c[i] += o.get(i);
            }
        }
        return c;
    }

    /** A snapshot for the replies: the total and the cumulative distribution. */
    public Snapshot snapshot() {
        long[] c = counts();
        long total = 0;
        for (long n : c) {
            total += n;
        }
        return new Snapshot(c, total);
    }

    /** The counts at one moment. */
    public static final class Snapshot {
        private final long[] counts;
        private final long total;

        Snapshot(long[] counts, long total) {
            this.counts = counts;
            this.total = total;
        }

        public long total() {
            return total;
        }

        /**
         * Redis's fillCommandCDF: walking levels of 1024 ns doubling, each level's highest equivalent value in
         * microseconds with the count of calls up to it, for the levels where that count grew.
         */
        public void forEachLogBucket(BiConsumer<Long, Long> bucket) {
            long cumulative = 0;
            long previous = 0;
            int index = -1;
            for (long level = 1024; cumulative < total; level <<= 1) {
                long reported;
                if (level > highestEquivalent(valueAt(COUNTS - 1))) {
                    // Past the last level inside the range: HdrHistogram's iterator ends on the last index.
                    while (index < COUNTS - 1) {
                        cumulative += counts[++index];
                    }
                    reported = highestEquivalent(valueAt(COUNTS - 1));
                } else {
                    int upTo = countsIndex(level);
                    while (index < upTo) {
                        cumulative += counts[++index];
                    }
                    reported = highestEquivalent(level);
                }
                if (cumulative > previous) {
                    bucket.accept(reported / 1000, cumulative);
                }
                previous = cumulative;
            }
        }

        /** HdrHistogram's hdr_value_at_percentile, in nanoseconds. */
        public long valueAtPercentile(double percentile) {
            double requested = Math.min(percentile, 100.0);
            long countAt = Math.max(1, (long) ((requested / 100) * total + 0.5));
            long running = 0;
            int index = 0;
            for (; index < COUNTS; index++) {
                running += counts[index];
                if (running >= countAt) {
                    break;
                }
            }
            long value = valueAt(Math.min(index, COUNTS - 1));
            return percentile == 0.0 ? lowestEquivalent(value) : highestEquivalent(value);
        }
    }

    private static int bucketIndex(long value) {
        int pow2ceiling = 64 - Long.numberOfLeadingZeros(value | (2L * SUB_BUCKET_HALF - 1));
        return pow2ceiling - (SUB_BUCKET_HALF_MAGNITUDE + 1);
    }

    static int countsIndex(long value) {
        int bucket = bucketIndex(value);
        int sub = (int) (value >>> bucket);
        return ((bucket + 1) << SUB_BUCKET_HALF_MAGNITUDE) + sub - SUB_BUCKET_HALF;
    }

    static long valueAt(int index) {
        int bucket = (index >> SUB_BUCKET_HALF_MAGNITUDE) - 1;
        int sub = (index & (SUB_BUCKET_HALF - 1)) + SUB_BUCKET_HALF;
        if (bucket < 0) {
            sub -= SUB_BUCKET_HALF;
            bucket = 0;
        }
        return (long) sub << bucket;
    }

    private static long lowestEquivalent(long value) {
        int bucket = bucketIndex(value);
        return (value >>> bucket) << bucket;
    }

    static long highestEquivalent(long value) {
        return lowestEquivalent(value) + (1L << bucketIndex(value)) - 1;
    }
}
