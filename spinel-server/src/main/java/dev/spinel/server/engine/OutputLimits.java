package dev.spinel.server.engine;

import dev.spinel.server.config.Param;
import dev.spinel.server.config.ServerConfig;

import java.util.List;
import java.util.Locale;

/**
 * {@code client-output-buffer-limit} for pub/sub subscribers: a client whose unsent output passes
 * the hard limit, or stays above the soft limit for longer than the soft seconds, is disconnected,
 * so a slow subscriber cannot grow the server's memory without bound. Redis's default for the
 * pubsub class is {@code 32mb 8mb 60}.
 *
 * <p>Thread-safety: reads the configuration at each check; the per-session soft-limit timestamp is
 * only touched on the session's own loop.
 */
public final class OutputLimits implements PubSub.OutputLimit {
    private static final long DEFAULT_HARD = 32L * 1024 * 1024;
    private static final long DEFAULT_SOFT = 8L * 1024 * 1024;
    private static final long DEFAULT_SOFT_SECONDS = 60;
    private final ServerConfig config;

    public OutputLimits(ServerConfig config) {
        this.config = config;
    }

    @Override
    public boolean exceeded(Session s, long pending) {
        long[] l = pubsubLimits();
        if (l[0] > 0 && pending >= l[0]) {
            return true;
        }
        if (l[1] > 0 && pending >= l[1]) {
            long now = System.currentTimeMillis();
            if (s.overSoftLimitSince() == 0) {
                s.overSoftLimitSince(now);
                return false;
            }
            return now - s.overSoftLimitSince() >= l[2] * 1000;
        }
        s.overSoftLimitSince(0);
        return false;
    }

    /** hard, soft, soft-seconds for the pubsub class, from the configuration when it has the parameter. */
    private long[] pubsubLimits() {
        Param p = config.param("client-output-buffer-limit");
        if (p != null) {
            List<String> w = List.of(p.get().toLowerCase(Locale.ROOT).trim().split("\\s+"));
            for (int i = 0; i + 3 < w.size(); i += 4) {
                if (w.get(i).equals("pubsub")) {
                    try {
                        return new long[]{Long.parseLong(w.get(i + 1)), Long.parseLong(w.get(i + 2)), Long.parseLong(w.get(i + 3))};
                    } catch (NumberFormatException ignored) {
                        break;
                    }
                }
            }
        }
        return new long[]{DEFAULT_HARD, DEFAULT_SOFT, DEFAULT_SOFT_SECONDS};
    }
}
