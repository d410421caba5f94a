package dev.spinel.store.types;

/**
 * A score interval of ZRANGEBYSCORE/ZCOUNT/ZREMRANGEBYSCORE: {@code min}/{@code max} with exclusive
 * flags (Redis's {@code zrangespec}). Immutable.
 */
public record ScoreRange(double min, boolean minExclusive, double max, boolean maxExclusive) {
    public boolean aboveMin(double v) {
        return minExclusive ? v > min : v >= min;
    }

    public boolean belowMax(double v) {
        return maxExclusive ? v < max : v <= max;
    }

    /** True when no score can be inside (Redis's zslIsInRange pre-check). */
    public boolean isEmpty() {
        return min > max || (min == max && (minExclusive || maxExclusive));
    }
}
