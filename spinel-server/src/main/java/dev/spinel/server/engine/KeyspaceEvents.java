package dev.spinel.server.engine;

import dev.spinel.server.engine.ports.KeyObserver;
import dev.spinel.server.engine.ports.ReplicationFeed;
import dev.spinel.server.engine.tracking.Tracking;
import dev.spinel.server.stats.LazyFree;
import dev.spinel.store.Database;
import dev.spinel.store.Entry;
import dev.spinel.store.KeyspaceListener;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The signals of a key that changed outside a command's own reporting: expired (the keyspace's lazy or
 * active expiry), added (the "new" event), evicted, served to a blocked client, or written by DEBUG and
 * such. Each reaches keyspace notifications, replication or the log (a DEL), WATCH, client-side caching
 * and other front ends' key observer, as the command path's own changes do.
 *
 * <p>Thread-safety: stateless; called on whichever thread changed the key, holding its stripe, and
 * writes only to thread-safe parts of the engine (hooks read once per call from their volatile fields).
 */
final class KeyspaceEvents implements KeyspaceListener {
    private static final byte[] DEL = {'D', 'E', 'L'};
    private final Engine engine;
    private final Notifications notifications;
    private final Watches watches;
    private final Tracking tracking;

    KeyspaceEvents(Engine engine) {
        this.engine = engine;
        this.notifications = engine.notifications();
        this.watches = engine.watches();
        this.tracking = engine.tracking();
    }

    @Override
    public void expired(Database db, Entry e) {
        if (engine.config().lazyfreeLazyExpire.value()) {
            LazyFree.freed(engine.stats(), e.storedValue()); // Redis's deleteExpiredKeyAndPropagate frees it asynchronously
        }
        expired(db, e.key());
    }

    @Override
    public void expired(Database db, byte[] key) {
        notifications.notify(Notifications.EXPIRED, "expired", key, db.index());
        ReplicationFeed feed = engine.hooks().replicationFeed();
        if (feed != null) {
            // as Redis's deleteExpiredKeyAndPropagate: replicas never expire keys, the master's DEL does
            byte[] del = delFrame(key);
            feed.append(db.index(), del, 0, del.length);
        }
        watches.touch(db.index(), key);
        if (tracking.active()) {
            tracking.keyChanged(null, key);
        }
        KeyObserver o = engine.hooks().keyObserver();
        if (o != null) {
            o.keyExpired(db.index(), key);
        }
    }

    @Override
    public void overwritten(Database db, Object old) {
        if (engine.config().lazyfreeLazyServerDel.value()) {
            LazyFree.freed(engine.stats(), old); // Redis's dbOverwrite frees the old value asynchronously
        }
    }

    @Override
    public void added(Database db, Entry e) {
        // Redis's dbAdd: the "new" event (class n), before the command's own event.
        if (notifications.enabled(Notifications.NEW)) {
            notifications.notify(Notifications.NEW, "new", e.key(), db.index());
        }
    }

    /** See {@link Engine#keyModified}. */
    void modified(int db, byte[] key) {
        modifiedBy(null, db, key);
    }

    /**
     * A key changed by a served blocked command of {@code waiter} (on the serving thread): as
     * {@link #modified}, with the waiter as the client whose command changed it (CLIENT TRACKING's
     * NOLOOP, and its own invalidation after its reply, as Redis's current client).
     */
    void modifiedBy(Session waiter, int db, byte[] key) {
        watches.touch(db, key);
        if (tracking.active()) {
            tracking.keyChanged(waiter, key);
        }
        KeyObserver o = engine.hooks().keyObserver();
        if (o != null) {
            o.keyChanged(db, key);
        }
    }

    /** A key was evicted (called under its stripe lock): the same signals as a deletion by a command. */
    void evicted(int db, byte[] key) {
        Propagator p = engine.hooks().propagator();
        if (p != null) {
            p.propagateEffect(db, new byte[][] {DEL, key}); // as Redis: the log and replicas see a DEL
        }
        notifications.notify(Notifications.EVICTED, "evicted", key, db);
        engine.stats().dirty.increment();
        modified(db, key);
    }

    /** {@code DEL key} as a RESP frame. */
    private static byte[] delFrame(byte[] key) {
        byte[] head = ("*2\r\n$3\r\nDEL\r\n$" + key.length + "\r\n").getBytes(StandardCharsets.US_ASCII);
        byte[] f = Arrays.copyOf(head, head.length + key.length + 2);
        System.arraycopy(key, 0, f, head.length, key.length);
        f[f.length - 2] = '\r';
        f[f.length - 1] = '\n';
        return f;
    }
}
