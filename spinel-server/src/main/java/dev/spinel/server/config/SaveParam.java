package dev.spinel.server.config;

import java.util.ArrayList;
import java.util.List;

/**
 * {@code save <seconds> <changes> [<seconds> <changes> ...]}: the snapshot points, or {@code save ""}
 * for none. CONFIG SET replaces the whole list; in a config file, several {@code save} lines
 * accumulate (the first one read replaces the default), as in Redis 7.0.
 *
 * <p>Thread-safety: the list is replaced as a whole (volatile, immutable lists).
 */
public final class SaveParam extends Param {
    /** One snapshot point: save after {@code seconds} if at least {@code changes} writes happened. */
    public record Point(long seconds, long changes) {
    }

    private volatile List<Point> points = List.of();
    private boolean loadedFromFile;

    public SaveParam() {
        super("save", true);
    }

    public List<Point> points() {
        return points;
    }

    @Override
    public String get() {
        StringBuilder sb = new StringBuilder();
        for (Point p : points) {
            if (!sb.isEmpty()) {
                sb.append(' ');
            }
            sb.append(p.seconds()).append(' ').append(p.changes());
        }
        return sb.toString();
    }

    @Override
    public String defaultValue() {
        return "";
    }

    @Override
    public void set(String value) throws ConfigException {
        points = parse(value);
    }

    /** A config-file {@code save} line: appends to the points read so far from the file. */
    void loadLine(String value) throws ConfigException {
        List<Point> parsed = parse(value);
        if (value.isEmpty()) {
            points = List.of();
            loadedFromFile = true;
            return;
        }
        List<Point> next = new ArrayList<>(loadedFromFile ? points : List.of());
        next.addAll(parsed);
        loadedFromFile = true;
        points = List.copyOf(next);
    }

    /** One line per point, or {@code save ""} so that a restart does not fall back to defaults. */
    @Override
    public String rewriteLine() {
        if (points.isEmpty()) {
            return "save \"\"";
        }
        StringBuilder sb = new StringBuilder();
        for (Point p : points) {
            if (!sb.isEmpty()) {
                sb.append('\n');
            }
            sb.append("save ").append(p.seconds()).append(' ').append(p.changes());
        }
        return sb.toString();
    }

    private static List<Point> parse(String value) throws ConfigException {
        // CONFIG SET splits on single spaces (sdssplitlen), so stray spaces make empty, invalid words.
        String[] words = value.isEmpty() ? new String[0] : value.split(" ", -1);
        if (words.length % 2 != 0) {
            throw new ConfigException("Invalid save parameters");
        }
        List<Point> out = new ArrayList<>();
        for (int i = 0; i < words.length; i += 2) {
            long seconds = parseLong(words[i]);
            long changes = parseLong(words[i + 1]);
            if (seconds < 1 || changes < 0) {
                throw new ConfigException("Invalid save parameters");
            }
            out.add(new Point(seconds, changes));
        }
        return List.copyOf(out);
    }

    /** strtoll with a full-consumption check, as Redis reads save points ("" reads as 0). */
    private static long parseLong(String w) throws ConfigException {
        long n = OutputBufferLimitsParam.strtoll(w);
        if (n == Long.MIN_VALUE) {
            throw new ConfigException("Invalid save parameters");
        }
        return n;
    }
}
