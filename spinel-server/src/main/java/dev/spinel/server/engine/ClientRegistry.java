package dev.spinel.server.engine;

import java.util.Collection;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * All connected clients by id, for CLIENT LIST/KILL/INFO and maxclients.
 *
 * <p>Thread-safety: concurrent map; sessions register and leave from their own event loops.
 */
public final class ClientRegistry {
    private final ConcurrentSkipListMap<Long, Session> sessions = new ConcurrentSkipListMap<>();
    private final AtomicLong nextId = new AtomicLong(1);

    public long nextId() {
        return nextId.getAndIncrement();
    }

    public void add(Session s) {
        sessions.put(s.id(), s);
    }

    public void remove(Session s) {
        sessions.remove(s.id());
    }

    public Session get(long id) {
        return sessions.get(id);
    }

    public int size() {
        return sessions.size();
    }

    /** Sessions in id order. */
    public Collection<Session> all() {
        return sessions.values();
    }
}
