package dev.spinel.server.commands.list;

import dev.spinel.protocol.Args;
import dev.spinel.server.engine.Notifications;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;
import dev.spinel.store.Database;
import dev.spinel.store.Entry;
import dev.spinel.store.Segment;
import dev.spinel.store.types.ListValue;

/**
 * Helpers shared by the list commands and their blocking variants. Callers hold the key's segment lock.
 */
final class Lists {
    static final RedisError NOT_POSITIVE = Errors.NOT_POSITIVE;

    private Lists() {
    }

    /** The list of an entry, or WRONGTYPE. */
    static ListValue list(Entry e) {
        if (e.value() instanceof ListValue l) {
            return l;
        }
        throw Errors.WRONGTYPE;
    }

    /** LEFT → true (head), RIGHT → false; anything else is a syntax error. */
    static boolean side(Args a, int i) {
        if (a.is(i, "LEFT")) {
            return true;
        }
        if (a.is(i, "RIGHT")) {
            return false;
        }
        throw Errors.SYNTAX;
    }

    /** Creates the list of a key being pushed to for the first time. */
    static ListValue create(Session s, Segment seg, Args a, int keyArg, int hash) {
        ListValue l = new ListValue(s.engine().config().collectionSettings);
        seg.insert(a.copy(keyArg), hash, l, -1);
        return l;
    }

    /** Deletes the key if its list became empty (Redis never keeps empty collections). */
    static void deleteIfEmpty(Segment seg, Entry e, ListValue l) {
        if (l.length() == 0) {
            seg.removeEntry(e);
        }
    }

    /** Announces {@code del} for key argument {@code i} if its list was emptied (and so deleted). */
    static void notifyIfDeleted(Session s, Args a, int i, ListValue l) {
        if (l.length() == 0) {
            s.notify(Notifications.GENERIC, "del", a, i);
        }
    }

    /** Tells the blocking framework a list key may now have elements for its waiters. */
    static void signal(Session s, Database db, byte[] buf, int off, int len) {
        s.engine().blocking().signal(db, buf, off, len);
    }

    static void signal(Session s, Args a, int i) {
        signal(s, s.db(), a.buffer(), a.offset(i), a.length(i));
    }

    /** Writes {@code n} bulk elements popped from one end of the list. */
    static void popInto(Session s, ListValue l, boolean head, long n) {
        int count = (int) Math.min(n, l.length());
        s.out().array(count);
        for (int i = 0; i < count; i++) {
            s.out().bulk(l.pop(head));
        }
    }
}
