package dev.spinel.server.stats;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The histogram reproduces Redis 7.0.15's HdrHistogram figures; the expected values were read from
 * redis-server (LATENCY HISTOGRAM after DEBUG SLEEP 0.0001 / 0.0015 / 0.003, INFO latencystats of SET and HSET).
 */
class LatencyHistogramTest {
    private static List<Long> buckets(LatencyHistogram h) {
        List<Long> out = new ArrayList<>();
        h.snapshot().forEachLogBucket((micros, cumulative) -> {
            out.add(micros);
            out.add(cumulative);
        });
        return out;
    }

    @Test
    void logBucketsAreRedisHighestEquivalentValues() {
        LatencyHistogram h = new LatencyHistogram();
        h.record(150);
        h.record(1500);
        h.record(3000);
        assertEquals(List.of(264L, 1L, 2113L, 2L, 4227L, 3L), buckets(h));
        assertEquals(3, h.snapshot().total());
    }

    @Test
    void fastCallsFallInTheFirstBucketAndVerySlowOnesInTheLast() {
        LatencyHistogram h = new LatencyHistogram();
        h.record(0);
        h.record(0);
        h.record(5_000_000); // 5 s: clamped to 1 s, Redis's highest trackable value
        assertEquals(List.of(1L, 2L, 1073741L, 3L), buckets(h));
    }

    @Test
    void percentilesAsInfoLatencystatsShowsThem() {
        LatencyHistogram h = new LatencyHistogram();
        h.record(10);
        assertEquals(10_047, h.snapshot().valueAtPercentile(50));
        LatencyHistogram g = new LatencyHistogram();
        g.record(14);
        assertEquals(14_015, g.snapshot().valueAtPercentile(99.9));
        LatencyHistogram one = new LatencyHistogram();
        one.record(1);
        assertEquals(1_003, one.snapshot().valueAtPercentile(50));
    }

    @Test
    void resetForgetsEveryCall() {
        LatencyHistogram h = new LatencyHistogram();
        h.record(7);
        h.reset();
        assertEquals(0, h.snapshot().total());
        assertEquals(List.of(), buckets(h));
        h.record(7);
        assertEquals(1, h.snapshot().total());
    }
}
