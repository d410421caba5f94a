package dev.spinel.server.commands.server;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.engine.Command;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.RedisError;
import dev.spinel.server.stats.LatencyHistogram;
import dev.spinel.server.stats.LatencyMonitor;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * LATENCY HISTOGRAM, DOCTOR and GRAPH (Redis's latency.c and sparkline.c): the per-command histograms of
 * latency-tracking, and the reports drawn from the latency monitor's events.
 *
 * <p>Thread-safety: stateless; the data are read through {@link LatencyMonitor} and {@link LatencyHistogram}.
 */
final class LatencyReports {
    private static final int GRAPH_COLUMNS = 80;
    private static final int GRAPH_ROWS = 4;

    private LatencyReports() {
    }

    // LATENCY HISTOGRAM [command ...]
    static void histogram(Session s, Args a) {
        List<Command> chosen = new ArrayList<>();
        if (a.count() == 2) {
            for (Command c : s.engine().commands().allWithSubcommands()) {
                if (c.latency().snapshot().total() > 0) {
                    chosen.add(c);
                }
            }
        } else {
            // Redis's latencySpecificCommandsFillCDF: unknown names are skipped; a container brings its subcommands.
            for (int i = 2; i < a.count(); i++) {
                Command c = lookup(s, a.string(i));
                if (c == null) {
                    continue;
                }
                if (c.latency().snapshot().total() > 0) {
                    chosen.add(c);
                }
                for (Command sub : c.subcommands().values()) {
                    if (sub.latency().snapshot().total() > 0) {
                        chosen.add(sub);
                    }
                }
            }
        }
        ReplyBuffer out = s.out();
        out.map(chosen.size());
        for (Command c : chosen) {
            LatencyHistogram.Snapshot h = c.latency().snapshot();
            List<long[]> buckets = new ArrayList<>();
            h.forEachLogBucket((micros, cumulative) -> buckets.add(new long[]{micros, cumulative}));
            out.bulk(c.name());
            out.map(2);
            out.bulk("calls").integer(h.total());
            out.bulk("histogram_usec").map(buckets.size());
            for (long[] b : buckets) {
                out.integer(b[0]).integer(b[1]);
            }
        }
    }

    private static Command lookup(Session s, String name) {
        int bar = name.indexOf('|');
        if (bar < 0) {
            return s.engine().commands().visible(name);
        }
        Command container = s.engine().commands().visible(name.substring(0, bar));
        return container == null ? null : container.subcommand(name.substring(bar + 1).toLowerCase(Locale.ROOT));
    }

    // LATENCY DOCTOR
    static void doctor(Session s, Args a) {
        LatencyMonitor monitor = s.engine().latency();
        List<String> events = monitor.events();
        if (events.isEmpty() && s.engine().config().latencyMonitorThreshold.value() == 0) {
            s.out().verbatim("I'm sorry, Dave, I can't do that. Latency monitoring is disabled in this Redis instance. "
                    + "You may use \"CONFIG SET latency-monitor-threshold <milliseconds>.\" in order to enable it. If we "
                    + "weren't in a deep space mission I'd suggest to take a look at https://redis.io/topics/latency-monitor.\n");
            return;
        }
        if (events.isEmpty()) {
            s.out().verbatim("Dave, no latency spike was observed during the lifetime of this Redis instance, not in the "
                    + "slightest bit. I honestly think you ought to sit down calmly, take a stress pill, and think things over.\n");
            return;
        }
        // Redis's createLatencyReport for the events Spinel records ("command", "fast-command").
        StringBuilder report = new StringBuilder("Dave, I have observed latency spikes in this Redis instance. "
                + "You don't mind talking about it, do you Dave?\n\n");
        long now = System.currentTimeMillis() / 1000;
        long threshold = s.engine().config().latencyMonitorThreshold.value();
        long slowlog = s.engine().config().slowlogLogSlowerThan.value();
        boolean slowlogEnabled = false;
        boolean slowlogTuning = false;
        boolean slowlogInspect = false;
        boolean largeObjects = false;
        boolean scheduler = false;
        int n = 0;
        for (String event : events) {
            List<long[]> samples = monitor.samples(event);
            if (samples.isEmpty()) {
                continue;
            }
            long sum = 0;
            long oldest = Long.MAX_VALUE;
            for (long[] p : samples) {
                sum += p[1];
                oldest = Math.min(oldest, p[0]);
            }
            long avg = sum / samples.size();
            long deviation = 0;
            for (long[] p : samples) {
                deviation += Math.abs(avg - p[1]);
            }
            long mad = deviation / samples.size();
            long period = Math.max(1, now - oldest);
            report.append(String.format(Locale.ROOT, "%d. %s: %d latency spikes (average %dms, mean deviation %dms, "
                    + "period %.2f sec). Worst all time event %dms.", ++n, event, samples.size(), avg, mad,
                    (double) period / samples.size(), monitor.max(event))).append('\n');
            if (event.equalsIgnoreCase("command")) {
                if (slowlog < 0) {
                    slowlogEnabled = true;
                } else if (slowlog / 1000 > threshold) {
                    slowlogTuning = true;
                }
                slowlogInspect = true;
                largeObjects = true;
            } else if (event.equalsIgnoreCase("fast-command")) {
                scheduler = true;
            }
        }
        if (!(slowlogEnabled || slowlogTuning || slowlogInspect || largeObjects || scheduler)) {
            report.append("\nWhile there are latency events logged, I'm not able to suggest any easy fix. Please use the "
                    + "Redis community to get some help, providing this report in your help request.\n");
            s.out().verbatim(report.toString());
            return;
        }
        report.append("\nI have a few advices for you:\n\n");
        if (slowlogEnabled) {
            report.append("- There are latency issues with potentially slow commands you are using. Try to enable the "
                    + "Slow Log Redis feature using the command 'CONFIG SET slowlog-log-slower-than ").append(threshold * 1000)
                    .append("'. If the Slow log is disabled Redis is not able to log slow commands execution for you.\n");
        }
        if (slowlogTuning) {
            report.append("- Your current Slow Log configuration only logs events that are slower than your configured "
                    + "latency monitor threshold. Please use 'CONFIG SET slowlog-log-slower-than ").append(threshold * 1000)
                    .append("'.\n");
        }
        if (slowlogInspect) {
            report.append("- Check your Slow Log to understand what are the commands you are running which are too slow "
                    + "to execute. Please check https://redis.io/commands/slowlog for more information.\n");
        }
        if (scheduler) {
            report.append("- The system is slow to execute Redis code paths not containing system calls. This usually "
                    + "means the system does not provide Redis CPU time to run for long periods. You should try to:\n"
                    + "  1) Lower the system load.\n"
                    + "  2) Use a computer / VM just for Redis if you are running other software in the same system.\n"
                    + "  3) Check if you have a \"noisy neighbour\" problem.\n"
                    + "  4) Check with 'redis-cli --intrinsic-latency 100' what is the intrinsic latency in your system.\n"
                    + "  5) Check if the problem is allocator-related by recompiling Redis with MALLOC=libc, if you are "
                    + "using Jemalloc. However this may create fragmentation problems.\n");
        }
        if (largeObjects) {
            report.append("- Deleting, expiring or evicting (because of maxmemory policy) large objects is a blocking "
                    + "operation. If you have very large objects that are often deleted, expired, or evicted, try to "
                    + "fragment those objects into multiple smaller objects.\n");
        }
        s.out().verbatim(report.toString());
    }

    // LATENCY GRAPH event
    static void graph(Session s, Args a) {
        String event = a.string(2);
        LatencyMonitor monitor = s.engine().latency();
        List<long[]> samples = monitor.samples(event);
        if (samples.isEmpty()) {
            throw new RedisError("ERR No samples available for event '" + a.cString(2) + "'");
        }
        long now = System.currentTimeMillis() / 1000;
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        List<String> labels = new ArrayList<>();
        for (long[] p : samples) {
            min = Math.min(min, p[1]);
            max = Math.max(max, p[1]);
            long elapsed = now - p[0];
            labels.add(elapsed < 60 ? elapsed + "s" : elapsed < 3600 ? elapsed / 60 + "m"
                    : elapsed < 86400 ? elapsed / 3600 + "h" : elapsed / 86400 + "d");
        }
        StringBuilder g = new StringBuilder(String.format(Locale.ROOT, "%s - high %d ms, low %d ms (all time high %d ms)\n",
                event, max, min, monitor.max(event)));
        g.append("-".repeat(GRAPH_COLUMNS)).append('\n');
        for (int j = 0; j < samples.size(); j += GRAPH_COLUMNS) {
            if (j != 0) {
                g.append('\n');
            }
            renderRange(g, samples, labels, min, max, j, Math.min(GRAPH_COLUMNS, samples.size() - j));
        }
        s.out().verbatim(g.toString());
    }

    private static final String CHARSET_FILL = "_o#";

    /** Redis's sparklineRenderRange with SPARKLINE_FILL: GRAPH_ROWS rows of bars, then the labels written downwards. */
    private static void renderRange(StringBuilder out, List<long[]> samples, List<String> labels, long min, long max,
                                    int offset, int len) {
        double relmax = max - min == 0 ? 1 : max - min;
        int steps = CHARSET_FILL.length() * GRAPH_ROWS;
        char[] chars = new char[len];
        for (int row = 0; ; row++) {
            boolean loop = false;
            Arrays.fill(chars, ' ');
            for (int j = 0; j < len; j++) {
                double relval = samples.get(j + offset)[1] - min;
                int step = (int) ((int) (relval * steps) / relmax);
                step = Math.max(0, Math.min(steps - 1, step));
                if (row < GRAPH_ROWS) {
                    int charidx = step - ((GRAPH_ROWS - row - 1) * CHARSET_FILL.length());
                    loop = true;
                    if (charidx >= 0 && charidx < CHARSET_FILL.length()) {
                        chars[j] = CHARSET_FILL.charAt(charidx);
                    } else if (charidx >= CHARSET_FILL.length()) {
                        chars[j] = '|';
                    }
                } else {
                    if (row - GRAPH_ROWS < 1) { // one blank line between the bars and the labels
                        loop = true;
                        break;
                    }
                    String label = labels.get(j + offset);
                    int labelChar = row - GRAPH_ROWS - 1;
                    if (label.length() > labelChar) {
                        loop = true;
                        chars[j] = label.charAt(labelChar);
                    }
                }
            }
            if (!loop) {
                return;
            }
            out.append(chars).append('\n');
        }
    }
}
