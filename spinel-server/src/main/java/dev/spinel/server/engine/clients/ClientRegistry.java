package dev.spinel.server.engine.clients;

import java.util.Collection;
import java.util.Comparator;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * All connected clients by id, for CLIENT LIST/KILL/INFO and maxclients.
 *
 * <p>Each client is its own key, ordered by id: a map keyed by the boxed id held a 16-byte {@code Long} per
 * connection (docs/memory.md, round 7). Lookups by id pass a {@code Long}, which the comparator reads as an id.
 *
 * <p>Thread-safety: concurrent map; sessions register and leave from their own event loops.
 */
public final class ClientRegistry<C extends Client> {
    /** Orders clients, and an id looked up ({@code Long}) among them, by id. */
    private static final Comparator<Object> BY_ID = (a, b) -> Long.compare(id(a), id(b));

    private final ConcurrentSkipListMap<Object, C> sessions = new ConcurrentSkipListMap<>(BY_ID);
    private final AtomicLong nextId = new AtomicLong(1);
    /** Told once of each client that leaves (used_memory stops counting its buffers at once). */
    private volatile Consumer<Client> removed = c -> { };

    public long nextId() {
        return nextId.getAndIncrement();
    }

    public void add(C s) {
        sessions.put(s, s);
    }

    public void remove(C s) {
        if (sessions.remove(s, s)) {
            removed.accept(s);
        }
    }

    /** Installs the listener told of each client that leaves. */
    public void onRemove(Consumer<Client> listener) {
        this.removed = listener;
    }

    public C get(long id) {
        return sessions.get(id); // boxed for the look-up only: CLIENT KILL ID, tracking redirects
    }

    private static long id(Object key) {
        return key instanceof Client c ? c.id() : (Long) key;
    }

    public int size() {
        return sessions.size();
    }

    /** Clients in id order. */
    public Collection<C> all() {
        return sessions.values();
    }
}
