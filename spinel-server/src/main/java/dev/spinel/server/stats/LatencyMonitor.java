package dev.spinel.server.stats;

import dev.spinel.protocol.ReplyBuffer;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * LATENCY: for each event class (Spinel records "command"), the latest and maximum latency in
 * milliseconds and a history of up to 160 one-per-second samples, recorded when a latency reaches
 * {@code latency-monitor-threshold} (0 disables), as Redis's latency monitor does.
 *
 * <p>Thread-safety: synchronized; only events over the threshold reach it.
 */
public final class LatencyMonitor {
    private static final int HISTORY = 160;

    private static final class Series {
        final ArrayDeque<long[]> samples = new ArrayDeque<>();
        long max;
    }

    private final Map<String, Series> events = new LinkedHashMap<>();

    public synchronized void record(String event, long millis) {
        long now = System.currentTimeMillis() / 1000;
        Series s = events.computeIfAbsent(event, k -> new Series());
        long[] last = s.samples.peekLast();
        if (last != null && last[0] == now) {
            last[1] = Math.max(last[1], millis);
        } else {
            s.samples.addLast(new long[]{now, millis});
            if (s.samples.size() > HISTORY) {
                s.samples.removeFirst();
            }
        }
        s.max = Math.max(s.max, millis);
    }

    /** LATENCY LATEST: event, timestamp, latest, max for each event. */
    public synchronized void writeLatest(ReplyBuffer out) {
        out.array(events.size());
        for (Map.Entry<String, Series> e : events.entrySet()) {
            long[] last = e.getValue().samples.peekLast();
            out.array(4);
            out.bulk(e.getKey());
            out.integer(last[0]);
            out.integer(last[1]);
            out.integer(e.getValue().max);
        }
    }

    /** LATENCY HISTORY event: [timestamp, latency] pairs, oldest first. */
    public synchronized void writeHistory(ReplyBuffer out, String event) {
        Series s = events.get(event);
        if (s == null) {
            out.array(0);
            return;
        }
        out.array(s.samples.size());
        Iterator<long[]> it = s.samples.iterator();
        while (it.hasNext()) {
            long[] p = it.next();
            out.array(2);
            out.integer(p[0]);
            out.integer(p[1]);
        }
    }

    /** The event classes with samples, in the order they first occurred. */
    public synchronized List<String> events() {
        return new ArrayList<>(events.keySet());
    }

    /** An event's samples, oldest first, as {time in seconds, latency in ms}; empty when it has none. */
    public synchronized List<long[]> samples(String event) {
        Series s = events.get(event);
        List<long[]> out = new ArrayList<>();
        if (s != null) {
            for (long[] p : s.samples) {
                out.add(p.clone());
            }
        }
        return out;
    }

    /** The all-time highest latency of an event, in ms. */
    public synchronized long max(String event) {
        Series s = events.get(event);
        return s == null ? 0 : s.max;
    }

    /** LATENCY RESET [event ...]: returns how many event series were reset. */
    public synchronized int reset(String[] names) {
        if (names.length == 0) {
            int n = events.size();
            events.clear();
            return n;
        }
        int n = 0;
        for (String name : names) {
            if (events.remove(name) != null) {
                n++;
            }
        }
        return n;
    }
}
