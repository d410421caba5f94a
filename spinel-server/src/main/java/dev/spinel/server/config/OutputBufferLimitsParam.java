package dev.spinel.server.config;

import java.math.BigInteger;
import java.util.Locale;

/**
 * {@code client-output-buffer-limit <class> <hard> <soft> <soft-seconds> [<class> ...]} with the
 * classes {@code normal}, {@code replica} (alias {@code slave}) and {@code pubsub}. A set changes
 * only the classes it names; the whole value is validated before any class changes.
 *
 * <p>Thread-safety: the three limits are replaced together as one immutable array.
 */
public final class OutputBufferLimitsParam extends Param {
    /** Limits of one client class; 0 disables a limit. */
    public record Limit(long hardBytes, long softBytes, long softSeconds) {
    }

    public static final int NORMAL = 0;
    public static final int REPLICA = 1;
    public static final int PUBSUB = 2;
    private static final Limit[] DEFAULTS = {new Limit(0, 0, 0), new Limit(256L << 20, 64L << 20, 60),
            new Limit(32L << 20, 8L << 20, 60)};
    private volatile Limit[] limits = DEFAULTS.clone();

    public OutputBufferLimitsParam() {
        super("client-output-buffer-limit", true);
    }

    /** The limits of a class: {@link #NORMAL}, {@link #REPLICA} or {@link #PUBSUB}. */
    public Limit limit(int clientClass) {
        return limits[clientClass];
    }

    @Override
    public String get() {
        return format(limits);
    }

    @Override
    public String defaultValue() {
        return format(DEFAULTS);
    }

    @Override
    public void set(String value) throws ConfigException {
        // Split on single spaces as Redis's sdssplitlen; "" is no class at all (and changes nothing).
        String[] w = value.isEmpty() ? new String[0] : value.split(" ", -1);
        if (w.length % 4 != 0) {
            throw new ConfigException("Wrong number of arguments in buffer limit configuration.");
        }
        Limit[] next = limits.clone();
        for (int i = 0; i < w.length; i += 4) {
            int cls = switch (w[i].toLowerCase(Locale.ROOT)) {
                case "normal" -> NORMAL;
                case "replica", "slave" -> REPLICA;
                case "pubsub" -> PUBSUB;
                default -> throw new ConfigException("Invalid client class specified in buffer limit configuration.");
            };
            long hard = Params.parseMemory(w[i + 1]);
            long soft = Params.parseMemory(w[i + 2]);
            long secs = strtoll(w[i + 3]);
            if (hard < 0 || soft < 0 || secs < 0) {
                throw new ConfigException("Error in hard, soft or soft_seconds setting in buffer limit configuration.");
            }
            next[cls] = new Limit(hard, soft, secs);
        }
        limits = next;
    }

    /**
     * C's strtoll with an end check: leading spaces, an optional sign, digits (none reads as 0), and
     * nothing after; {@code Long.MIN_VALUE} when malformed. Overflow saturates, as strtoll does.
     */
    static long strtoll(String s) {
        int i = 0;
        int n = s.length();
        while (i < n && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
        boolean neg = false;
        if (i < n && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
            neg = s.charAt(i) == '-';
            i++;
        }
        int start = i;
        while (i < n && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
            i++;
        }
        if (start == i) {
            // No digits: strtoll leaves its end pointer at the start, so only "" is fully consumed.
            return s.isEmpty() ? 0 : Long.MIN_VALUE;
        }
        if (i != n) {
            return Long.MIN_VALUE;
        }
        BigInteger v = new BigInteger(s.substring(start, i));
        if (neg) {
            v = v.negate();
        }
        return v.max(BigInteger.valueOf(Long.MIN_VALUE + 1)).min(BigInteger.valueOf(Long.MAX_VALUE)).longValue();
    }

    private static String format(Limit[] l) {
        String[] names = {"normal", "slave", "pubsub"};
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < l.length; i++) {
            if (i > 0) {
                sb.append(' ');
            }
            sb.append(names[i]).append(' ').append(l[i].hardBytes()).append(' ').append(l[i].softBytes())
                    .append(' ').append(l[i].softSeconds());
        }
        return sb.toString();
    }

    /** Redis writes one line per class that differs from its default. */
    @Override
    public String rewriteLine() {
        String[] names = {"normal", "slave", "pubsub"};
        StringBuilder sb = new StringBuilder();
        Limit[] l = limits;
        for (int i = 0; i < l.length; i++) {
            if (!sb.isEmpty()) {
                sb.append('\n');
            }
            sb.append("client-output-buffer-limit ").append(names[i]).append(' ').append(l[i].hardBytes()).append(' ')
                    .append(l[i].softBytes()).append(' ').append(l[i].softSeconds());
        }
        return sb.toString();
    }
}
