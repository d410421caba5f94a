package dev.spinel.server.stats;

import java.util.concurrent.atomic.LongAdder;

/**
 * How often something slow happened and how long it took in all (the AOF's fsyncs), read by the metrics
 * endpoint as a count and a sum. For rare events only: two adders per event.
 *
 * <p>Thread-safety: {@link #record} from any thread; readers see a slightly stale but never torn pair of sums.
 */
public final class DurationTotal {
    private final LongAdder count = new LongAdder();
    private final LongAdder nanos = new LongAdder();

    public void record(long elapsedNanos) {
        nanos.add(elapsedNanos);
        count.increment();
    }

    public long count() {
        return count.sum();
    }

    public long nanos() {
        return nanos.sum();
    }
}
