package dev.spinel.server.engine.clients;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.Repr;

import java.time.Instant;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * MONITOR: every executed command is shown to the monitoring clients as Redis formats it,
 * {@code +<unix seconds>.<micros> [<db> <ip:port>] "arg" "arg"...}, delivered on each monitor's
 * own event loop. When no client monitors, the cost per command is one {@code isEmpty()}.
 *
 * <p>Thread-safety: a concurrent set; deliveries are tasks on the monitors' loops, except the line of a monitor's own
 * command, written by the thread running it (its own).
 */
public final class Monitors {
    private final Set<Client> monitors = ConcurrentHashMap.newKeySet();

    public boolean isEmpty() {
        return monitors.isEmpty();
    }

    public void add(Client s) {
        monitors.add(s);
    }

    public void remove(Client s) {
        monitors.remove(s);
    }

    public boolean contains(Client s) {
        return monitors.contains(s);
    }

    /** Feeds one executed command to every monitor, the session that ran it included if it monitors. */
    public void feed(Client s, Args a) {
        Instant now = Instant.now();
        StringBuilder sb = new StringBuilder(64);
        sb.append(now.getEpochSecond()).append('.');
        String micros = Integer.toString(now.getNano() / 1000);
        sb.append("000000", 0, 6 - micros.length()).append(micros);
        sb.append(" [").append(s.dbIndex()).append(' ').append(s.connection().remoteAddress()).append(']');
        for (int i = 0; i < a.count(); i++) {
            sb.append(' ');
            if (SlowLog.redacted(a, i)) {
                sb.append("\"(redacted)\"");
                continue;
            }
            Repr.append(sb, a.buffer(), a.offset(i), a.length(i));
        }
        String line = sb.toString();
        for (Client m : monitors) { // the monitor that ran it too, as Redis's replicationFeedMonitors
            if (m == s) {
                // on its own thread, right after the command's reply (Redis adds the line to the same buffer); a
                // delivery would wait for the end of the read batch and come after the pipeline's later replies
                if (!s.repliesDropped()) {
                    s.out().simple(line);
                }
                continue;
            }
            m.deliver(() -> {
                if (!m.repliesDropped()) { // a monitor under CLIENT REPLY OFF gets no lines, as in Redis
                    m.out().simple(line);
                }
            });
        }
    }
}
