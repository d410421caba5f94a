package dev.spinel.store;

import java.util.concurrent.ThreadLocalRandom;

/**
 * Redis's LFU access stamp, kept in {@link Entry#access()} when a maxmemory LFU policy is selected:
 * the low 8 bits are a logarithmic access counter, the 16 bits above them the time of the last
 * decrement in minutes (modulo 2^16). A new key starts at {@link #INIT_VAL} so that it is not evicted
 * before it had a chance to be used.
 *
 * <p>Stateless and thread-safe; the stamp itself is guarded by the entry's segment lock.
 */
public final class Lfu {
    /** Redis's LFU_INIT_VAL. */
    public static final int INIT_VAL = 5;
    /** Redis's defaults for lfu-log-factor and lfu-decay-time (minutes). */
    public static final int LOG_FACTOR = 10;
    public static final int DECAY_MINUTES = 1;

    private Lfu() {
    }

    /** The stamp of a new key. */
    static int initial(long nowMinutes) {
        return (int) ((nowMinutes & 0xFFFF) << 8) | INIT_VAL;
    }

    /** The counter after decay: one step per {@link #DECAY_MINUTES} elapsed since the stamp. */
    static int counter(int stamp, long nowMinutes) {
        int ldt = (stamp >>> 8) & 0xFFFF;
        int counter = stamp & 0xFF;
        long now = nowMinutes & 0xFFFF;
        long elapsed = now >= ldt ? now - ldt : 65535 - ldt + now;
        long periods = elapsed / DECAY_MINUTES;
        return periods > counter ? 0 : (int) (counter - periods);
    }

    /** The stamp after one access: decay, then a probabilistic logarithmic increment. */
    static int touched(int stamp, long nowMinutes) {
        int counter = counter(stamp, nowMinutes);
        if (counter < 255) {
            double base = Math.max(0, counter - INIT_VAL);
            double p = 1.0 / (base * LOG_FACTOR + 1);
            if (ThreadLocalRandom.current().nextDouble() < p) {
                counter++;
            }
        }
        return (int) ((nowMinutes & 0xFFFF) << 8) | counter;
    }
}
