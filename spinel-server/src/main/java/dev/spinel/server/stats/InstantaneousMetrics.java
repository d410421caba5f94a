package dev.spinel.server.stats;

/**
 * Redis's instantaneous rates (ops/sec, input/output kbps): every 100 ms the cron records the
 * counters' growth, and a rate is the average of the last 16 samples.
 *
 * <p>Thread-safety: {@link #sample} runs on the single cron thread; readers see the volatile sums.
 */
public final class InstantaneousMetrics {
    private static final int SAMPLES = 16;
    private static final long PERIOD_MS = 100;

    private final long[][] rates = new long[3][SAMPLES];
    private final long[] last = new long[3];
    private long lastMillis;
    private int index;
    private final long[] sums = new long[3];
    private volatile long opsPerSec;
    private volatile double inputKbps;
    private volatile double outputKbps;

    /** Records a sample when at least 100 ms passed since the previous one (called by the server cron). */
    public void sample(long nowMillis, ServerStats stats) {
        if (lastMillis != 0 && nowMillis - lastMillis < PERIOD_MS) {
            return;
        }
        long[] now = {stats.commandsProcessed.sum(), stats.netInputBytes.sum(), stats.netOutputBytes.sum()};
        if (lastMillis != 0) {
            long dt = Math.max(1, nowMillis - lastMillis);
            for (int m = 0; m < 3; m++) {
                long rate = Math.max(0, now[m] - last[m]) * 1000 / dt;
                sums[m] += rate - rates[m][index];
                rates[m][index] = rate;
            }
            index = (index + 1) % SAMPLES;
            opsPerSec = sums[0] / SAMPLES;
            inputKbps = sums[1] / (double) SAMPLES / 1024;
            outputKbps = sums[2] / (double) SAMPLES / 1024;
        }
        System.arraycopy(now, 0, last, 0, 3);
        lastMillis = nowMillis;
    }

    public long opsPerSec() {
        return opsPerSec;
    }

    public double inputKbps() {
        return inputKbps;
    }

    public double outputKbps() {
        return outputKbps;
    }
}
