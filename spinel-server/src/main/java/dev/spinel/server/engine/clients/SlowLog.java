package dev.spinel.server.engine.clients;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.ReplyBuffer;

import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Iterator;

/**
 * SLOWLOG: commands slower than {@code slowlog-log-slower-than} microseconds, newest first, at
 * most {@code slowlog-max-len} entries. Arguments are kept as Redis keeps them: at most 32, each
 * cut to 128 bytes with a "... (N more bytes)" note.
 *
 * <p>Thread-safety: synchronized; only slow commands reach it, so the lock is off the hot path.
 */
public final class SlowLog {
    private static final int MAX_ARGS = 32;
    private static final int MAX_ARG_LEN = 128;

    record Entry(long id, long unixSeconds, long micros, byte[][] argv, String addr, String name) {
    }

    private final ArrayDeque<Entry> entries = new ArrayDeque<>();
    private long nextId;

    public synchronized void add(Client s, Args a, long micros, long maxLen) {
        int argc = Math.min(a.count(), MAX_ARGS);
        byte[][] argv = new byte[argc][];
        for (int i = 0; i < argc; i++) {
            if (argc < a.count() && i == argc - 1) {
                argv[i] = ("... (" + (a.count() - argc + 1) + " more arguments)").getBytes(StandardCharsets.US_ASCII);
            } else if (redacted(a, i)) {
                argv[i] = REDACTED;
            } else if (a.length(i) > MAX_ARG_LEN) {
                byte[] cut = Arrays.copyOfRange(a.buffer(), a.offset(i), a.offset(i) + MAX_ARG_LEN);
                byte[] note = ("... (" + (a.length(i) - MAX_ARG_LEN) + " more bytes)").getBytes(StandardCharsets.US_ASCII);
                argv[i] = Arrays.copyOf(cut, cut.length + note.length);
                System.arraycopy(note, 0, argv[i], cut.length, note.length);
            } else {
                argv[i] = a.copy(i);
            }
        }
        entries.addFirst(new Entry(nextId++, System.currentTimeMillis() / 1000, micros, argv,
                s.connection().remoteAddress(), s.name()));
        while (entries.size() > maxLen) {
            entries.removeLast();
        }
    }

    private static final byte[] REDACTED = "(redacted)".getBytes(StandardCharsets.US_ASCII);

    /**
     * Secrets Redis hides from the slow log and MONITOR: AUTH's arguments, HELLO's AUTH pair, ACL SETUSER's arguments,
     * MIGRATE's AUTH/AUTH2 credentials, CONFIG SET's values of masterauth, masteruser and requirepass.
     */
    static boolean redacted(Args a, int i) {
        if (a.is(0, "AUTH")) {
            return i >= 1 && a.count() <= 3; // AUTH with more arguments fails its syntax check before redacting
        }
        if (a.is(0, "ACL")) {
            return i >= 2 && a.is(1, "SETUSER");
        }
        if (a.is(0, "CONFIG")) {
            // Redis 7.0's configSetCommand: the values of its SENSITIVE_CONFIG parameters, when the pairs are whole
            return a.is(1, "SET") && (a.count() & 1) == 0 && i >= 3 && (i & 1) == 1
                    && (a.is(i - 1, "MASTERAUTH") || a.is(i - 1, "MASTERUSER") || a.is(i - 1, "REQUIREPASS"));
        }
        if (a.is(0, "MIGRATE")) {
            // Redis 7.0 hides AUTH's password and AUTH2's username and password, up to KEYS
            for (int j = 6; j < a.count(); j++) {
                int more = a.count() - 1 - j;
                if (a.is(j, "AUTH") && more >= 1) {
                    if (i == j + 1) {
                        return true;
                    }
                    j++;
                } else if (a.is(j, "AUTH2") && more >= 2) {
                    if (i == j + 1 || i == j + 2) {
                        return true;
                    }
                    j += 2;
                } else if (!a.is(j, "COPY") && !a.is(j, "REPLACE")) {
                    return false;
                }
            }
            return false;
        }
        if (a.is(0, "HELLO")) {
            for (int j = 2; j < a.count(); j++) {
                int more = a.count() - 1 - j;
                if (a.is(j, "AUTH") && more >= 2) {
                    if (i == j + 1 || i == j + 2) {
                        return true;
                    }
                    j += 2;
                } else if (a.is(j, "SETNAME") && more >= 1) {
                    j++;
                } else {
                    return false; // HELLO stops at its first bad option, before redacting what follows
                }
            }
        }
        return false;
    }

    public synchronized int size() {
        return entries.size();
    }

    public synchronized void reset() {
        entries.clear();
    }

    /** Writes the newest {@code count} entries (all when negative) in SLOWLOG GET's shape. */
    public synchronized void write(ReplyBuffer out, long count) {
        int n = count < 0 ? entries.size() : (int) Math.min(count, entries.size());
        out.array(n);
        Iterator<Entry> it = entries.iterator();
        for (int k = 0; k < n; k++) {
            Entry e = it.next();
            out.array(6);
            out.integer(e.id());
            out.integer(e.unixSeconds());
            out.integer(e.micros());
            out.array(e.argv().length);
            for (byte[] arg : e.argv()) {
                out.bulk(arg);
            }
            out.bulk(e.addr());
            out.bulk(e.name());
        }
    }
}
