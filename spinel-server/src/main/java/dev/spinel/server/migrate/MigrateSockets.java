package dev.spinel.server.migrate;

import java.io.IOException;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * MIGRATE's cached connections to target instances, keyed by the {@code host:port} text as given, as
 * Redis's server.migrate_cached_sockets: at most 64 (a random one is dropped for a new one), each closed
 * by {@link #closeIdle} once unused for more than 10 seconds, or when a command using it meets an error.
 *
 * <p>Thread-safety: safe from any thread. A link is taken out of the cache while a MIGRATE uses it
 * ({@link #take}) and put back after ({@link #giveBack}), so two commands never share one; a second
 * MIGRATE to the same target meanwhile opens its own, and the one given back last is closed.
 */
public final class MigrateSockets {
    static final int MAX_ITEMS = 64;
    static final long IDLE_MILLIS = 10_000;
    private final Map<String, TargetLink> idle = new ConcurrentHashMap<>();
    /** Links in use or cached, as INFO's migrate_cached_sockets counts them. */
    private final Map<TargetLink, String> open = new ConcurrentHashMap<>();

    /** The cached link to {@code name} ("host:port"), or a new one connected within the timeout. */
    public TargetLink take(String name, String host, int port, long timeoutMillis) throws IOException {
        TargetLink l = idle.remove(name);
        if (l == null) {
            if (open.size() >= MAX_ITEMS) {
                dropOne();
            }
            l = TargetLink.connect(host, port, timeoutMillis);
            open.put(l, name);
        }
        l.lastUseMillis(System.currentTimeMillis());
        return l;
    }

    /** Puts a link back after a command that kept it usable. */
    public void giveBack(String name, TargetLink l) {
        l.lastUseMillis(System.currentTimeMillis());
        if (idle.putIfAbsent(name, l) != null) {
            discard(l);
        }
    }

    /** Closes a link after an I/O error (Redis's migrateCloseSocket). */
    public void discard(TargetLink l) {
        open.remove(l);
        l.close();
    }

    /** Closes every cached link unused for more than 10 seconds (Redis's migrateCloseTimedoutSockets). */
    public void closeIdle() {
        long now = System.currentTimeMillis();
        for (Iterator<Map.Entry<String, TargetLink>> it = idle.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, TargetLink> e = it.next();
            if (now - e.getValue().lastUseMillis() > IDLE_MILLIS && idle.remove(e.getKey(), e.getValue())) {
                discard(e.getValue());
            }
        }
    }

    /** Closes every cached link (at shutdown). */
    public void closeAll() {
        for (String name : idle.keySet()) {
            TargetLink l = idle.remove(name);
            if (l != null) {
                discard(l);
            }
        }
    }

    /** INFO's migrate_cached_sockets. */
    public int size() {
        return open.size();
    }

    private void dropOne() {
        Object[] names = idle.keySet().toArray();
        if (names.length == 0) {
            return;
        }
        TargetLink l = idle.remove((String) names[ThreadLocalRandom.current().nextInt(names.length)]);
        if (l != null) {
            discard(l);
        }
    }
}
