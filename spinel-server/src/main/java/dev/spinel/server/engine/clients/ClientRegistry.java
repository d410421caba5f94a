package dev.spinel.server.engine.clients;

import java.util.Collection;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * All connected clients by id, for CLIENT LIST/KILL/INFO and maxclients.
 *
 * <p>Thread-safety: concurrent map; sessions register and leave from their own event loops.
 */
public final class ClientRegistry<C extends Client> {
    private final ConcurrentSkipListMap<Long, C> sessions = new ConcurrentSkipListMap<>();
    private final AtomicLong nextId = new AtomicLong(1);
    /** Told once of each client that leaves (used_memory stops counting its buffers at once). */
    private volatile Consumer<Client> removed = c -> { };

    public long nextId() {
        return nextId.getAndIncrement();
    }

    public void add(C s) {
        sessions.put(s.id(), s);
    }

    public void remove(C s) {
        if (sessions.remove(s.id(), s)) {
            removed.accept(s);
        }
    }

    /** Installs the listener told of each client that leaves. */
    public void onRemove(Consumer<Client> listener) {
        this.removed = listener;
    }

    public C get(long id) {
        return sessions.get(id);
    }

    public int size() {
        return sessions.size();
    }

    /** Clients in id order. */
    public Collection<C> all() {
        return sessions.values();
    }
}
