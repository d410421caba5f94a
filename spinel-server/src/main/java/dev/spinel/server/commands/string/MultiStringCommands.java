package dev.spinel.server.commands.string;

import dev.spinel.protocol.Args;
import dev.spinel.server.commands.key.Keys;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Notifications;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.store.Database;
import dev.spinel.store.Entry;
import dev.spinel.store.Segment;
import dev.spinel.store.StripeLocks;

/**
 * The multi-key string commands MGET, MSET and MSETNX. Each holds the stripes of all its keys at
 * once (through the session's {@link StripeLocks}, in global order), so other clients see all of
 * its keys before or all after, as with Redis's single thread.
 *
 * <p>Thread-safety: stateless; the locks are the session's own.
 */
final class MultiStringCommands {
    private MultiStringCommands() {
    }

    static void register(CommandTable t) {
        t.register("mget", MultiStringCommands::mget);
        t.register("mset", MultiStringCommands::mset);
        t.register("msetnx", MultiStringCommands::msetnx);
    }

    /** Locks the stripes of key arguments first, first+step, ... (all in the session's database). */
    private static StripeLocks lockKeys(Session s, Args a, int first, int step) {
        Database db = s.db();
        StripeLocks locks = s.locks();
        for (int i = first; i < a.count(); i += step) {
            locks.add(db, a.buffer(), a.offset(i), a.length(i));
        }
        locks.lock();
        return locks;
    }

    // MGET key [key ...]
    static void mget(Session s, Args a) {
        Database db = s.db();
        StripeLocks locks = lockKeys(s, a, 1, 1);
        try {
            s.out().array(a.count() - 1);
            for (int i = 1; i < a.count(); i++) {
                int h = Keys.hash(a, i);
                Entry e = Keys.read(s, db.segment(h), a, i, h);
                if (e != null && e.isString()) {
                    Keys.replyString(s.out(), e);
                } else {
                    s.out().nullBulk(); // missing, or not a string: MGET never fails on type
                }
            }
        } finally {
            locks.unlock();
        }
    }

    // MSET key value [key value ...]
    static void mset(Session s, Args a) {
        msetGeneric(s, a, false);
    }

    // MSETNX key value [key value ...]
    static void msetnx(Session s, Args a) {
        msetGeneric(s, a, true);
    }

    /** Redis's msetGenericCommand: with {@code nx}, sets nothing (and answers 0) if any key exists. */
    private static void msetGeneric(Session s, Args a, boolean nx) {
        if (a.count() % 2 == 0) {
            throw Errors.wrongArgs(nx ? "msetnx" : "mset");
        }
        Database db = s.db();
        StripeLocks locks = lockKeys(s, a, 1, 2);
        try {
            if (nx) {
                for (int i = 1; i < a.count(); i += 2) {
                    int h = Keys.hash(a, i);
                    if (Keys.write(s, db.segment(h), a, i, h) != null) {
                        s.out().integer(0);
                        return;
                    }
                }
            }
            for (int i = 1; i < a.count(); i += 2) {
                int h = Keys.hash(a, i);
                Segment seg = db.segment(h);
                Entry e = Keys.write(s, seg, a, i, h);
                if (e == null) {
                    seg.insertString(a.buffer(), a.offset(i), a.length(i), h, a.buffer(), a.offset(i + 1), a.length(i + 1), -1);
                } else {
                    e = seg.replaceString(e, a.buffer(), a.offset(i + 1), a.length(i + 1));
                    seg.setExpire(e, -1); // like SET without KEEPTTL
                }
                s.notify(Notifications.STRING, "set", a, i);
            }
            s.dirty((a.count() - 1) / 2);
            if (nx) {
                s.out().integer(1);
            } else {
                s.out().ok();
            }
        } finally {
            locks.unlock();
        }
    }
}
