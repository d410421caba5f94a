package dev.spinel.server.engine;

import dev.spinel.protocol.Args;
import dev.spinel.server.acl.Acl;
import dev.spinel.server.acl.AclLog;
import dev.spinel.server.acl.UserRules;
import dev.spinel.server.errors.RedisError;
import dev.spinel.store.Entry;
import dev.spinel.store.KeyHash;
import dev.spinel.store.Keyspace;
import dev.spinel.store.Segment;

/**
 * MULTI, EXEC, DISCARD, WATCH and UNWATCH with Redis's semantics. Queueing happens in
 * {@link Engine#execute} (which owns dispatch); this class opens, checks and runs transactions.
 *
 * <p>Thread-safety: a session's transaction state is touched only on its own loop; EXEC makes the
 * queued commands atomic against every other client by holding every stripe of every database.
 */
public final class Transactions {
    private final Engine engine;
    private final Keyspace keyspace;
    private final Watches watches;

    Transactions(Engine engine, Keyspace keyspace, Watches watches) {
        this.engine = engine;
        this.keyspace = keyspace;
        this.watches = watches;
    }

    /** MULTI: opens a transaction. */
    public void multi(Session s) {
        if (s.transaction() != null) {
            throw new RedisError("ERR MULTI calls can not be nested");
        }
        s.transaction(new Transaction());
        s.out().ok();
    }

    /** DISCARD: drops the transaction and the watches. */
    public void discard(Session s) {
        if (s.transaction() == null) {
            throw new RedisError("ERR DISCARD without MULTI");
        }
        s.transaction(null);
        watches.unwatchAll(s);
        s.out().ok();
    }

    /**
     * Redis's execCommandAbort: an EXEC refused before it runs (OOM, MISCONF) drops the transaction and the
     * watches and answers EXECABORT with the reason.
     */
    void abortExec(Session s, String reason) {
        s.transaction(null);
        watches.unwatchAll(s);
        s.out().error("EXECABORT Transaction discarded because of: " + reason);
    }

    /** WATCH key [key ...] */
    public void watch(Session s, Args a) {
        if (s.transaction() != null) {
            throw new RedisError("ERR WATCH inside MULTI is not allowed");
        }
        long now = System.currentTimeMillis();
        for (int i = 1; i < a.count(); i++) {
            byte[] key = a.copy(i);
            int h = KeyHash.hash(key);
            Segment seg = s.db().segment(h);
            boolean expired = false;
            if (lockUnlessBusyScript(s, seg)) {
                try {
                    Entry e = seg.find(key, 0, key.length, h);
                    expired = e != null && e.expireAt() >= 0 && e.expireAt() <= now;
                } finally {
                    seg.unlock();
                }
            }
            watches.watch(s, s.dbIndex(), key, expired);
        }
        s.out().ok();
    }

    /**
     * WATCH is allowed while a script is busy (as in Redis), but that script holds every stripe until it
     * ends: then the key is watched as not expired rather than the loop blocking on the stripe.
     */
    private static boolean lockUnlessBusyScript(Session s, Segment seg) {
        if (seg.tryLock()) {
            return true;
        }
        if (s.engine().script().busy(s.engine().config().busyReplyThreshold.value())) {
            return false;
        }
        seg.lock();
        return true;
    }

    /** UNWATCH */
    public void unwatch(Session s) {
        watches.unwatchAll(s);
        s.out().ok();
    }

    /**
     * EXEC: runs the queued commands atomically against every other client. All stripes of all
     * databases are held for the duration (queued commands may touch any key, and SELECT may switch
     * databases); the stripes are taken in the global order, so this cannot deadlock with multi-key
     * commands. Commands inside re-enter their stripes' locks (they are reentrant).
     */
    public void exec(Session s) {
        Transaction t = s.transaction();
        if (t == null) {
            throw new RedisError("ERR EXEC without MULTI");
        }
        s.transaction(null);
        if (t.aborted()) {
            watches.unwatchAll(s);
            throw new RedisError("EXECABORT Transaction discarded because of previous errors.");
        }
        int n = keyspace.databases();
        for (int i = 0; i < n; i++) {
            keyspace.db(i).lockAll();
        }
        try {
            if (s.watch().dirty() || watchedKeyExpired(s)) {
                watches.unwatchAll(s);
                s.out().nullArray();
                return;
            }
            s.out().array(t.queued().size());
            s.executingTransaction(true);
            for (Transaction.Queued q : t.queued()) {
                Args args = Args.of(q.argv());
                String refused = aclRecheck(s, q.command(), args);
                if (refused != null) {
                    s.out().error(refused);
                    engine.stats().error("NOPERM"); // an error reply, counted in INFO errorstats as Redis does
                    continue;
                }
                engine.run(s, q.command(), args);
            }
        } finally {
            Propagator p = engine.hooks().propagator();
            if (p != null) {
                p.execDone(s); // in finally: whatever part of the transaction was applied is logged
            }
            s.executingTransaction(false);
            for (int i = n - 1; i >= 0; i--) {
                keyspace.db(i).unlockAll();
            }
        }
        watches.unwatchAll(s);
    }

    /**
     * ACL rules are checked again at EXEC, in case they changed after the command was queued (Redis
     * 7.0): null when it may run, else the error that replaces its reply (and an ACL LOG entry).
     */
    private String aclRecheck(Session s, Command cmd, Args args) {
        UserRules rules = s.user().rules();
        if (rules.unrestricted()) {
            return null;
        }
        long denied = Acl.check(rules, cmd.aclId(), cmd.spec(), cmd.noAuth(), args, 0);
        if (denied == 0) {
            return null;
        }
        engine.logDenied(s, cmd, args, denied, AclLog.MULTI);
        String reason = switch ((int) (denied >>> 32)) {
            case Acl.DENIED_CMD -> "no permission to execute the command or subcommand";
            case Acl.DENIED_KEY -> "no permission to touch the specified keys";
            default -> "no permission to access one of the channels used as arguments";
        };
        return "NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC call. "
                + "This command is no longer allowed for the following reason: " + reason;
    }

    /** A watched key that is logically expired now but was not when watched also fails EXEC (Redis 7.0). */
    private boolean watchedKeyExpired(Session s) {
        long now = System.currentTimeMillis();
        for (Watches.Watched w : s.watch().watched()) {
            byte[] key = w.key.key().bytes();
            int h = KeyHash.hash(key);
            Entry e = keyspace.db(w.key.db()).segment(h).find(key, 0, key.length, h);
            if (e != null && e.expireAt() >= 0 && e.expireAt() <= now && !w.expired) {
                return true;
            }
        }
        return false;
    }
}
