package dev.spinel.server.commands.key;

import dev.spinel.persistence.DumpPayload;
import dev.spinel.persistence.ValueCodec;
import dev.spinel.persistence.ValueCodecs;
import dev.spinel.protocol.Args;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Notifications;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;
import dev.spinel.server.migrate.MigrateSockets;
import dev.spinel.server.migrate.TargetLink;
import dev.spinel.store.Entry;
import dev.spinel.store.Segment;
import dev.spinel.store.StripeLocks;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * MIGRATE host port key|"" destination-db timeout [COPY] [REPLACE] [AUTH password] [AUTH2 username password]
 * [KEYS key...], as Redis 7.0's migrateCommand: the keys are sent as RESTORE (RESTORE-ASKING in cluster
 * mode) with their DUMP payloads over a connection cached per target ({@link MigrateSockets}); each key the
 * target acknowledged is deleted here unless COPY, and the command is logged and replicated as a DEL of
 * those keys. Replies and errors are Redis's: {@code +NOKEY}, {@code -IOERR error or timeout ...},
 * {@code -ERR Target instance replied with error: ...}; one retry on a fresh connection when a cached one
 * turns out closed (not after a timeout).
 *
 * <p>Thread-safety: runs on the client's event loop and, like Redis's, blocks it for the exchange with the
 * target (at most the timeout per step). The stripes of the keys stay locked from the lookup to the
 * deletion, so the command is atomic for its keys; a MIGRATE to the very server it runs on therefore waits
 * for its own keys and ends in the timeout's IOERR, as Redis's does.
 */
public final class MigrateCommand {
    private static final byte[] DEL = {'D', 'E', 'L'};

    private MigrateCommand() {
    }

    public static void register(CommandTable t, MigrateSockets sockets) {
        t.register("migrate", (s, a) -> migrate(sockets, s, a));
    }

    static void migrate(MigrateSockets sockets, Session s, Args a) {
        boolean copy = false;
        boolean replace = false;
        byte[] username = null;
        byte[] password = null;
        int firstKey = 3;
        int numKeys = 1;
        for (int j = 6; j < a.count(); j++) {
            int more = a.count() - 1 - j;
            if (a.is(j, "COPY")) {
                copy = true;
            } else if (a.is(j, "REPLACE")) {
                replace = true;
            } else if (a.is(j, "AUTH")) {
                if (more == 0) {
                    throw Errors.SYNTAX;
                }
                password = a.copy(++j);
            } else if (a.is(j, "AUTH2")) {
                if (more < 2) {
                    throw Errors.SYNTAX;
                }
                username = a.copy(++j);
                password = a.copy(++j);
            } else if (a.is(j, "KEYS")) {
                if (a.length(3) != 0) {
                    throw new RedisError("ERR When using MIGRATE KEYS option, the key argument must be set to the empty string");
                }
                firstKey = j + 1;
                numKeys = a.count() - j - 1;
                break;
            } else {
                throw Errors.SYNTAX;
            }
        }
        long timeout;
        long db;
        try {
            timeout = a.parseLong(5);
            db = a.parseLong(4);
        } catch (NumberFormatException e) {
            throw Errors.NOT_INTEGER;
        }
        if (timeout <= 0) {
            timeout = 1000;
        }
        StripeLocks locks = KeyCommands.lockKeys(s, s.db(), a, firstKey);
        try {
            List<Integer> found = new ArrayList<>(numKeys);
            List<Entry> entries = new ArrayList<>(numKeys);
            for (int j = firstKey; j < firstKey + numKeys; j++) {
                int h = Keys.hash(a, j);
                Entry e = Keys.read(s, s.db().segment(h), a, j, h);
                if (e != null) {
                    found.add(j);
                    entries.add(e);
                }
            }
            if (found.isEmpty()) {
                s.out().simple("NOKEY");
                return;
            }
            Transfer t = new Transfer(s, a, sockets, found, entries, copy, replace, username, password, db, timeout);
            t.run();
        } finally {
            locks.unlock();
        }
    }

    /** One MIGRATE's exchange with its target (Redis's try_again / socket_err loop). */
    private static final class Transfer {
        private final Session s;
        private final Args a;
        private final MigrateSockets sockets;
        private final List<Integer> keys;
        private final List<Entry> entries;
        private final boolean copy;
        private final boolean replace;
        private final byte[] username;
        private final byte[] password;
        private final long db;
        private final long timeout;
        private final String name;
        /** Whether a key was deleted here (the target acknowledged it): the command then wrote. */
        private boolean moved;

        Transfer(Session s, Args a, MigrateSockets sockets, List<Integer> keys, List<Entry> entries, boolean copy,
                 boolean replace, byte[] username, byte[] password, long db, long timeout) {
            this.s = s;
            this.a = a;
            this.sockets = sockets;
            this.keys = keys;
            this.entries = entries;
            this.copy = copy;
            this.replace = replace;
            this.username = username;
            this.password = password;
            this.db = db;
            this.timeout = timeout;
            this.name = a.string(1) + ":" + a.string(2);
        }

        void run() {
            boolean mayRetry = true;
            while (true) {
                TargetLink link;
                try {
                    link = sockets.take(name, a.string(1), port(), timeout);
                } catch (IOException e) {
                    throw new RedisError("IOERR error or timeout connecting to the client");
                }
                Outcome o = attempt(link);
                if (o == Outcome.DONE) {
                    return;
                }
                sockets.discard(link);
                // Redis retries once on a new connection, unless the target timed out
                if ((o == Outcome.WRITE_FAILED || o == Outcome.READ_FAILED) && mayRetry) {
                    mayRetry = false;
                    continue;
                }
                boolean writing = o == Outcome.WRITE_FAILED || o == Outcome.WRITE_TIMEOUT;
                fail("IOERR error or timeout " + (writing ? "writing" : "reading") + " to target instance");
                return;
            }
        }

        /** The port as C's atoi reads it (leading digits; 0 without any), as Redis passes it on. */
        private int port() {
            String p = a.string(2).strip();
            long v = 0;
            int i = p.startsWith("+") || p.startsWith("-") ? 1 : 0;
            for (; i < p.length() && Character.isDigit(p.charAt(i)) && v <= Integer.MAX_VALUE; i++) {
                v = v * 10 + (p.charAt(i) - '0');
            }
            return (int) Math.min(v, Integer.MAX_VALUE) * (p.startsWith("-") ? -1 : 1);
        }

        private enum Outcome { DONE, WRITE_FAILED, READ_FAILED, WRITE_TIMEOUT, READ_TIMEOUT }

        private Outcome attempt(TargetLink link) {
            boolean select = link.lastDb() != db;
            long now = System.currentTimeMillis();
            Resp cmd = new Resp();
            if (password != null) {
                cmd.count(username != null ? 3 : 2).bulk("AUTH".getBytes(StandardCharsets.US_ASCII));
                if (username != null) {
                    cmd.bulk(username);
                }
                cmd.bulk(password);
            }
            if (select) {
                cmd.count(2).bulk("SELECT".getBytes(StandardCharsets.US_ASCII)).bulk(Long.toString(db).getBytes(StandardCharsets.US_ASCII));
            }
            boolean cluster = s.engine().config().clusterEnabled.value();
            List<Integer> sent = new ArrayList<>(keys.size());
            List<Entry> sentEntries = new ArrayList<>(keys.size());
            for (int i = 0; i < keys.size(); i++) {
                Entry e = entries.get(i);
                long ttl = 0;
                if (e.expireAt() >= 0) {
                    ttl = e.expireAt() - now;
                    if (ttl < 0) {
                        continue; // expired since the lookup
                    }
                    ttl = Math.max(ttl, 1);
                }
                ValueCodec codec = ValueCodecs.standard().forValue(e.value());
                if (codec == null) {
                    throw new RedisError("ERR DUMP is not supported for this type");
                }
                byte[] payload = DumpPayload.create(codec, codec.snapshot(e.value()));
                int k = keys.get(i);
                cmd.count(replace ? 5 : 4)
                        .bulk((cluster ? "RESTORE-ASKING" : "RESTORE").getBytes(StandardCharsets.US_ASCII))
                        .bulk(a.copy(k)).bulk(Long.toString(ttl).getBytes(StandardCharsets.US_ASCII)).bulk(payload);
                if (replace) {
                    cmd.bulk("REPLACE".getBytes(StandardCharsets.US_ASCII));
                }
                sent.add(k);
                sentEntries.add(e);
            }
            try {
                link.write(cmd.bytes(), timeout);
            } catch (SocketTimeoutException e) {
                return Outcome.WRITE_TIMEOUT;
            } catch (IOException e) {
                return Outcome.WRITE_FAILED;
            }
            String authReply = null;
            String selectReply = null;
            try {
                if (password != null) {
                    authReply = link.readLine(timeout);
                }
                if (select) {
                    selectReply = link.readLine(timeout);
                }
            } catch (SocketTimeoutException e) {
                return Outcome.READ_TIMEOUT;
            } catch (IOException e) {
                return Outcome.READ_FAILED;
            }
            String targetError = null;
            boolean socketError = false;
            boolean timedOut = false;
            List<byte[]> deleted = copy ? null : new ArrayList<>();
            int j;
            for (j = 0; j < sent.size(); j++) {
                String reply;
                try {
                    reply = link.readLine(timeout);
                } catch (IOException e) {
                    socketError = true;
                    timedOut = e instanceof SocketTimeoutException;
                    break;
                }
                boolean authFailed = authReply != null && authReply.startsWith("-");
                boolean selectFailed = selectReply != null && selectReply.startsWith("-");
                if (authFailed || selectFailed || reply.startsWith("-")) {
                    if (targetError == null) {
                        link.lastDb(-1);
                        String err = authFailed ? authReply : selectFailed ? selectReply : reply;
                        targetError = "ERR Target instance replied with error: " + err.substring(1);
                    }
                } else if (!copy) {
                    int k = sent.get(j);
                    Entry e = sentEntries.get(j);
                    s.db().segment(Keys.hash(a, k)).removeEntry(e);
                    s.dirty(1);
                    s.notify(Notifications.GENERIC, "del", a, k);
                    deleted.add(a.copy(k));
                    moved = true;
                }
            }
            if (targetError == null && socketError && j == 0 && !timedOut) {
                return Outcome.READ_FAILED; // nothing was processed: a closed cached connection, try a new one
            }
            if (deleted != null && !deleted.isEmpty()) {
                byte[][] argv = new byte[deleted.size() + 1][];
                argv[0] = DEL;
                for (int i = 0; i < deleted.size(); i++) {
                    argv[i + 1] = deleted.get(i);
                }
                s.propagateAs(argv);
            }
            if (socketError) {
                sockets.discard(link);
                if (targetError == null) {
                    fail("IOERR error or timeout reading to target instance");
                } else {
                    fail(targetError);
                }
                return Outcome.DONE;
            }
            sockets.giveBack(name, link);
            if (targetError == null) {
                link.lastDb((int) db);
                s.out().ok();
            } else {
                fail(targetError);
            }
            return Outcome.DONE;
        }

        /**
         * An error reply: thrown (counted as the command's failed call) when no key was moved; written when some
         * were, so that the engine still logs their DEL.
         */
        private void fail(String message) {
            if (!moved) {
                throw new RedisError(message);
            }
            s.out().error(message);
            int sp = message.indexOf(' ');
            s.engine().stats().error(sp < 0 ? message : message.substring(0, sp));
        }
    }

    /** The RESP request sent to the target. */
    private static final class Resp {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        Resp count(int n) {
            header('*', n);
            return this;
        }

        Resp bulk(byte[] b) {
            header('$', b.length);
            out.writeBytes(b);
            out.write('\r');
            out.write('\n');
            return this;
        }

        private void header(char c, long n) {
            out.write(c);
            out.writeBytes(Long.toString(n).getBytes(StandardCharsets.US_ASCII));
            out.write('\r');
            out.write('\n');
        }

        byte[] bytes() {
            return out.toByteArray();
        }
    }
}
