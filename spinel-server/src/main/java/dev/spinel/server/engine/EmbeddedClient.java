package dev.spinel.server.engine;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.KeyPositions;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.acl.Acl;
import dev.spinel.server.acl.AclLog;
import dev.spinel.server.acl.User;
import dev.spinel.server.acl.UserRules;
import dev.spinel.server.engine.clients.ClientPause;
import dev.spinel.server.engine.ports.InternalConnection;
import dev.spinel.server.engine.ports.KeyObserver;
import dev.spinel.server.engine.ports.ReplicationGate;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;
import dev.spinel.store.Database;
import dev.spinel.store.Entry;
import dev.spinel.store.KeyHash;
import dev.spinel.store.StripeLocks;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledExecutorService;

/**
 * The engine's API for a front end other than RESP (the gRPC service): a unit of work runs atomically
 * under the stripes of the keys it names, reads the keys' state, and writes by calling Redis commands
 * ({@code SET k v PXAT t}, {@code DEL k}) on behalf of an internal client. Those commands go through
 * the engine's own command path, so a front end's writes get everything a RESP client's writes get:
 * the MISCONF and OOM refusals (checked before the unit runs, with Redis's texts), CLIENT PAUSE (a held
 * unit throws {@link Paused} before it runs, and waits with {@link #whenUnpaused}), keyspace
 * notifications, WATCH and CLIENT TRACKING invalidation, MONITOR, the dirty counter, the other front
 * ends' {@link KeyObserver}, and the append-only log, where a unit's writes form one MULTI/EXEC block
 * (a single write is logged bare), as a script's or an EXEC's do. The unit's log position is returned;
 * {@link #afterLogged} runs the reply once the log acknowledges it, by the same mechanism the RESP
 * connection uses (the event loop writes the log itself when it may, else the log's thread calls back).
 *
 * <p>Thread-safety: thread-safe. Each thread has its own internal client session (used only by that
 * thread, inside {@link #run}); a unit must only touch the keys it named, must not block, and must not
 * start another writing unit. A reading unit may run inside any unit (the stripes are reentrant).
 */
public final class EmbeddedClient {
    /** What a unit may do, declared up front so that refusals come before any lock, as in dispatch. */
    public enum Access {
        /** Only reads: never refused. */
        READ,
        /** Writes that never grow the dataset (DEL): refused while persistence fails (MISCONF). */
        WRITE,
        /** Writes that may grow it (Redis's denyoom: SET): also refused over maxmemory (OOM). */
        GROW
    }

    /** A unit of work; runs with its keys' stripes held. */
    @FunctionalInterface
    public interface Unit<T> {
        T run(Locked keys);
    }

    /** A unit's result and the log position its reply must wait for (0: nothing logged). */
    public record Done<T>(T value, long logPosition) {
    }

    /** Receives one live or expired entry of a scan, under its stripe lock. */
    @FunctionalInterface
    public interface ScanVisitor {
        /**
         * {@code identity} is an object replaced whenever the key's value is (see {@link Locked#identity}); {@code value}
         * the value itself (a string as a {@code byte[]}).
         */
        void visit(byte[] key, Object value, Object identity, long expireAt);
    }

    private final Engine engine;
    private final String name;
    private final ThreadLocal<Session> sessions;

    /**
     * Thrown by {@link #run} while CLIENT PAUSE holds a writing unit (either pause type), and by
     * {@link #holdReadsIfPaused} while PAUSE ALL holds a client's read: nothing ran; the caller waits with
     * {@link #whenUnpaused} and runs it again, as a RESP client's request is postponed rather than refused.
     */
    public static final class Paused extends RuntimeException {
        private Paused() {
            super("paused", null, false, false);
        }
    }

    private static final Paused PAUSED = new Paused();
    private static final byte[] GET = {'G', 'E', 'T'};

    /**
     * The user with this name and password (Redis's AUTH), or null: unknown, disabled, or a wrong password.
     * A user with {@code nopass} takes any password.
     */
    public User authenticate(String username, byte[] password) {
        return engine.acl().authenticate(username, password);
    }

    /** The default user, when it needs no password (no requirepass, nopass and on), else null. */
    public User defaultUserWithoutPassword() {
        return engine.acl().authRequired() ? null : engine.acl().defaultUser();
    }

    /**
     * Redis's ACL check of the command {@code argv} for {@code user} (its commands, keys and selectors), as
     * dispatch does it for a RESP client: a denial is logged in ACL LOG and thrown with Redis's NOPERM text.
     */
    public void authorize(User user, byte[]... argv) {
        UserRules rules = user.rules();
        if (rules.unrestricted()) {
            return;
        }
        Args args = Args.of(argv);
        Command cmd = engine.commands().lookupOriginal(args);
        if (cmd == null) {
            throw new IllegalArgumentException("unknown command " + args.string(0));
        }
        long denied = Acl.check(rules, cmd.aclId(), cmd.spec(), cmd.noAuth(), args, 0);
        if (denied != 0) {
            deny(user, cmd, denied, args);
        }
    }

    /**
     * Whether {@code user} may read {@code key} as {@code GET key} (command and key patterns), without logging a
     * denial: for filtering many keys, {@link #authorize} then reports the one refused.
     */
    public boolean mayRead(User user, byte[] key) {
        UserRules rules = user.rules();
        if (rules.unrestricted()) {
            return true;
        }
        Command get = getCommand();
        return Acl.check(rules, get.aclId(), get.spec(), get.noAuth(), Args.of(GET, key), 0) == 0;
    }

    /**
     * The ACL check of reading every key that starts with {@code prefix} (a watch of a prefix): passes when one of
     * {@code user}'s selectors allows GET and reads all of them ({@code allkeys}, or a read pattern such as
     * {@code prefix*} or broader); else the denial is logged in ACL LOG (the prefix as its object) and thrown with
     * GET's NOPERM text, as {@link #authorize} does.
     */
    public void authorizePrefix(User user, byte[] prefix) {
        if (user.rules().unrestricted()) {
            return;
        }
        Args args = Args.of(GET, prefix);
        long denied = checkPrefix(user, args, prefix);
        if (denied != 0) {
            deny(user, getCommand(), denied, args);
        }
    }

    /** Whether {@link #authorizePrefix} would pass, without logging a denial. */
    public boolean mayReadPrefix(User user, byte[] prefix) {
        return user.rules().unrestricted() || checkPrefix(user, Args.of(GET, prefix), prefix) == 0;
    }

    /**
     * Redis's NOPERM text of {@code user} running {@code argv} (its command and keys), as {@link #authorize} would
     * throw it, or null when allowed; logs nothing.
     */
    public String denial(User user, byte[]... argv) {
        UserRules rules = user.rules();
        if (rules.unrestricted()) {
            return null;
        }
        Args args = Args.of(argv);
        Command cmd = engine.commands().lookupOriginal(args);
        long denied = Acl.check(rules, cmd.aclId(), cmd.spec(), cmd.noAuth(), args, 0);
        if (denied == 0) {
            return null;
        }
        return (int) (denied >>> 32) == Acl.DENIED_KEY ? "NOPERM this user has no permissions to access one of the keys used as arguments"
                : "NOPERM this user has no permissions to run the '" + cmd.name() + "' command";
    }

    /**
     * Whether {@code user} still exists, enabled: false after ACL DELUSER, ACL SETUSER off, or an ACL LOAD that
     * replaced it (Redis closes such a user's connections).
     */
    public boolean userCurrent(User user) {
        return engine.acl().current(user);
    }

    /** Runs {@code listener} after each change of the ACL users (on the changing thread: it must only hand work on). */
    public void onAclChange(Runnable listener) {
        engine.acl().onChange(listener);
    }

    private long checkPrefix(User user, Args args, byte[] prefix) {
        Command get = getCommand();
        return Acl.checkPrefix(user.rules(), get.aclId(), get.noAuth(), args, prefix, KeyPositions.ACL_READ);
    }

    private Command getCommand() {
        return engine.commands().lookupOriginal(Args.of(GET));
    }

    /** Logs a denial of {@code args} in ACL LOG and throws Redis's NOPERM text for it. */
    private void deny(User user, Command cmd, long denied, Args args) {
        boolean byKey = (int) (denied >>> 32) == Acl.DENIED_KEY;
        engine.acl().log().add(byKey ? "key" : "command", AclLog.TOPLEVEL,
                byKey ? new String(args.copy((int) denied), StandardCharsets.ISO_8859_1) : cmd.name(),
                user.name(), "id=0 addr=" + name + " laddr= fd=-1 name=" + name + " cmd=" + cmd.name() + " user=" + user.name(),
                engine.config().acllogMaxLen.value());
        throw new RedisError(byKey ? "NOPERM this user has no permissions to access one of the keys used as arguments"
                : "NOPERM this user has no permissions to run the '" + cmd.name() + "' command");
    }

    /**
     * True while CLIENT PAUSE ALL holds a front end's reads too. {@link #run} holds writes only (reading units
     * also serve the front end's own bookkeeping); a front end checks this before a client's read.
     */
    public boolean readsHeld() {
        ClientPause pause = engine.pause();
        return pause.active() && pause.holds(false, System.currentTimeMillis());
    }

    /**
     * Throws {@link Paused} while CLIENT PAUSE ALL holds reads ({@link #readsHeld}): for a front end's client
     * reads, which {@link #run} does not hold; the caller waits with {@link #whenUnpaused} as for a write.
     */
    public void holdReadsIfPaused() {
        if (readsHeld()) {
            throw PAUSED;
        }
    }

    /** Runs {@code retry} once CLIENT PAUSE ends (at once if it has); {@code timer} checks its end time. */
    public void whenUnpaused(Runnable retry, ScheduledExecutorService timer) {
        engine.pause().whenEnded(retry, timer);
    }

    EmbeddedClient(Engine engine, String name) {
        this.engine = engine;
        this.name = name;
        this.sessions = ThreadLocal.withInitial(this::newSession);
    }

    private Session newSession() {
        // Like a script's session: never listed by CLIENT LIST, authenticated, RESP2 replies to parse.
        Session s = new Session(engine, engine.clients().nextId(), new InternalConnection(name));
        s.authenticated(true);
        return s;
    }

    /**
     * Runs {@code unit} atomically with the stripes of {@code keys} (of database {@code db}) held.
     *
     * @throws RedisError the refusal (OOM, MISCONF; READONLY, NOREPLICAS or MASTERDOWN from replication) when the
     *                    unit may not run now; nothing ran
     */
    public <T> Done<T> run(int db, List<byte[]> keys, Access access, Unit<T> unit) {
        ReplicationGate gate = engine.hooks().replicationGate(); // null on a plain master: one volatile read
        if (gate != null) {
            // as a RESP client's command: a replica refuses writes (READONLY), a stale one reads too (MASTERDOWN)
            String refused = gate.refusal(false, access != Access.READ, true);
            if (refused != null) {
                throw new RedisError(refused);
            }
        }
        if (access != Access.READ) {
            ClientPause pause = engine.pause();
            if (pause.active() && pause.holds(true, System.currentTimeMillis())) {
                throw PAUSED; // nothing ran: the caller retries through whenUnpaused
            }
            String refusal = engine.hooks().diskRefusal();
            if (refusal != null) {
                throw new RedisError(refusal);
            }
            if (access == Access.GROW && engine.outOfMemory()) {
                throw Evictor.OOM;
            }
        }
        Database d = engine.keyspace().db(db);
        StripeLocks locks = new StripeLocks();
        for (byte[] k : keys) {
            locks.add(d, k, 0, k.length);
        }
        Session s = null;
        if (access != Access.READ) {
            s = sessions.get();
            if (s.executingTransaction()) {
                throw new IllegalStateException("a writing unit inside another");
            }
            s.select(db);
            s.logPosition(0);
        }
        Locked view = new Locked(d, s);
        locks.lock();
        try {
            if (s == null) {
                return new Done<>(unit.run(view), 0);
            }
            s.executingTransaction(true); // the commands re-enter the held stripes; the log collects them
            T value;
            try {
                value = unit.run(view);
            } finally {
                Propagator p = engine.hooks().propagator();
                if (p != null) {
                    p.execDone(s); // in finally: whatever the unit applied is logged, as EXEC does
                }
                s.executingTransaction(false);
                s.out().clear();
            }
            // Only now: execDone appended the unit's block and set its position. Read before it, the position
            // was 0 and the reply left before the log held the write (lost on a crash under appendfsync always).
            return new Done<>(value, s.logPosition());
        } finally {
            view.session = null;
            locks.unlock();
        }
    }

    /**
     * Whether log position {@code position} is acknowledged (fsynced under {@code appendfsync always},
     * handed to the OS otherwise); always true without a log and for position 0.
     */
    public boolean acknowledged(long position) {
        Propagator log = engine.hooks().propagator();
        return position == 0 || log == null || log.acknowledged(position);
    }

    /**
     * Lets the calling event loop write what the log has pending, when that alone acknowledges
     * {@code position} (see {@link Propagator#writeNow}); returns whether it is acknowledged now. For a front
     * end that gathers the replies of a loop turn and waits for the log once for all of them.
     */
    public boolean writeNow(long position) {
        Propagator log = engine.hooks().propagator();
        return position == 0 || log == null || log.writeNow(position);
    }

    /** Runs {@code task} once {@code position} is acknowledged: at once, or later on the log's thread. */
    public void whenAcknowledged(long position, Runnable task) {
        Propagator log = engine.hooks().propagator();
        if (position == 0 || log == null) {
            task.run();
        } else {
            log.whenAcknowledged(position, task);
        }
    }

    /**
     * Runs {@code reply} once log position {@code position} is acknowledged (fsynced under
     * {@code appendfsync always}, handed to the OS otherwise): at once when it already is, else on
     * {@code loop} after the loop has tried to write the log itself, or after the log's thread has.
     * Never blocks the caller.
     */
    public void afterLogged(long position, Executor loop, Runnable reply) {
        Propagator log = engine.hooks().propagator();
        if (log == null || log.acknowledged(position)) {
            reply.run();
            return;
        }
        // As the RESP connection does: a task after the rest of the loop's batch, so one write covers it.
        loop.execute(() -> {
            if (log.writeNow(position)) {
                reply.run();
            } else {
                log.whenAcknowledged(position, () -> loop.execute(reply));
            }
        });
    }

    /**
     * One step of a scan of database {@code db} (Redis's SCAN cursor), each entry visited under its
     * stripe lock, expired ones included (the visitor filters). Returns the next cursor, 0 at the end.
     */
    public long scan(int db, long cursor, int count, ScanVisitor visitor) {
        return engine.keyspace().db(db).scan(cursor, count, e -> visitor.visit(e.key(), e.value(), e.storedValue(), e.expireAt()));
    }

    /** The error text Redis gives for a string operation on a key of another type. */
    public static String wrongType() {
        return Errors.WRONGTYPE.getMessage();
    }

    /**
     * The keys of a running unit. Valid only inside {@link Unit#run}; the keys passed must be among
     * those the unit named.
     */
    public final class Locked {
        private final Database db;
        /** The unit's time for expiry checks: one clock read per unit, as Redis caches it per command. */
        private final long now;
        private Session session;

        private Locked(Database db, Session session) {
            this.db = db;
            this.session = session;
            this.now = System.currentTimeMillis();
        }

        private Entry entry(byte[] key) {
            int h = KeyHash.hash(key);
            return db.segment(h).get(key, 0, key.length, h, now);
        }

        /**
         * The key's live value, or null when absent (an expired key is removed now). Strings are
         * {@code byte[]}; every write makes a new value object, except in-place changes of collections.
         */
        public Object value(byte[] key) {
            Entry e = entry(key);
            return e == null ? null : e.value();
        }

        /**
         * An object that is replaced whenever the key's value is, or null when the key is absent: the value object,
         * or for a short string held in its entry the entry (whose fields never change). {@link #value} returns a
         * new copy of such a string on every call, so only this one can stand for the value's identity (gRPC's
         * key versions compare it).
         */
        public Object identity(byte[] key) {
            Entry e = entry(key);
            return e == null ? null : e.storedValue();
        }

        /** The key's absolute expiry in Unix milliseconds, -1 without one, -2 when absent. */
        public long expireAt(byte[] key) {
            Entry e = entry(key);
            return e == null ? -2 : e.expireAt();
        }

        /**
         * Runs a write command (e.g. {@code SET k v PXAT t}) on behalf of the internal client, through
         * the engine's command path.
         *
         * @throws RedisError the command's error reply
         */
        public void call(byte[]... argv) {
            Session s = session;
            if (s == null) {
                throw new IllegalStateException("a reading unit cannot write");
            }
            Args args = Args.of(argv);
            Command cmd = engine.commands().lookupOriginal(args);
            if (cmd == null || !cmd.spec().arityAccepts(args.count()) || cmd.hasSubcommands()) {
                throw new IllegalArgumentException("not a plain command: " + args.string(0));
            }
            ReplyBuffer out = s.out();
            int mark = out.size();
            engine.run(s, cmd, args);
            if (out.size() > mark && out.array()[mark] == '-') {
                int end = mark + 1;
                while (end < out.size() && out.array()[end] != '\r') {
                    end++;
                }
                String message = new String(out.array(), mark + 1, end - mark - 1, StandardCharsets.UTF_8);
                out.truncate(mark);
                throw new RedisError(message, true);
            }
            out.truncate(mark);
        }
    }
}
