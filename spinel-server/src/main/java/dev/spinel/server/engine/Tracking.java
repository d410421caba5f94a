package dev.spinel.server.engine;

import dev.spinel.protocol.ReplyBuffer;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Server-assisted client-side caching (CLIENT TRACKING), as Redis 7.0 does it: in the default mode
 * the server remembers which clients read which keys and sends each one invalidation when the key
 * changes (then forgets it); in BCAST mode clients get invalidations for every changed key under
 * their prefixes. Invalidations are RESP3 pushes ({@code invalidate}) or, for a RESP2 client
 * redirecting to another connection, messages on {@code __redis__:invalidate}. Flushes send a null
 * key to every tracking client.
 *
 * <p>Thread-safety: concurrent maps; deliveries to other sessions run on their own loops. The engine
 * calls {@link #keyRead} and {@link #keyChanged} from any loop.
 */
public final class Tracking {
    private static final byte[] INVALIDATE = "invalidate".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] MESSAGE = "message".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CHANNEL = "__redis__:invalidate".getBytes(StandardCharsets.US_ASCII);

    private final ClientRegistry clients;
    private final Map<ByteKey, Set<Long>> readers = new ConcurrentHashMap<>();
    private final Set<Session> broadcasting = ConcurrentHashMap.newKeySet();
    private final Set<Session> tracking = ConcurrentHashMap.newKeySet();

    public Tracking(ClientRegistry clients) {
        this.clients = clients;
    }

    /** True when some client tracks: the per-command cost otherwise is this one check. */
    public boolean active() {
        return !tracking.isEmpty();
    }

    public void enable(Session s, TrackingState state) {
        disable(s);
        s.tracking(state);
        tracking.add(s);
        if (state.bcast) {
            broadcasting.add(s);
        }
    }

    public void disable(Session s) {
        if (s.tracking() != null) {
            tracking.remove(s);
            broadcasting.remove(s);
            s.tracking(null);
        }
    }

    /** A tracking session read a key: remember it (one-shot) unless its mode says otherwise. */
    void keyRead(Session s, byte[] key) {
        TrackingState t = s.tracking();
        if (t == null || !t.tracksReads()) {
            return;
        }
        long id = s.id();
        readers.compute(new ByteKey(key), (k, ids) -> { // inside compute: a concurrent keyChanged cannot drop the set first
            Set<Long> set = ids != null ? ids : ConcurrentHashMap.newKeySet();
            set.add(id);
            return set;
        });
    }

    /** A key changed (written, deleted, expired); {@code origin} is the writer, or null. */
    void keyChanged(Session origin, byte[] key) {
        Set<Long> ids = readers.remove(new ByteKey(key));
        if (ids != null) {
            for (long id : ids) {
                Session target = clients.get(id);
                if (target == null || target.tracking() == null) {
                    continue;
                }
                if (target == origin && target.tracking().noloop) {
                    continue;
                }
                send(target, origin, key);
            }
        }
        for (Session b : broadcasting) {
            TrackingState t = b.tracking();
            if (t == null || (b == origin && t.noloop)) {
                continue;
            }
            if (t.prefixes.isEmpty() || t.prefixes.stream().anyMatch(p -> startsWith(key, p))) {
                send(b, origin, key);
            }
        }
    }

    /** FLUSHDB/FLUSHALL: every tracking client gets a null invalidation; the table is dropped. */
    void flushed(Session origin) {
        readers.clear();
        for (Session s : tracking) {
            send(s, origin, null);
        }
    }

    private void send(Session tracker, Session origin, byte[] key) {
        TrackingState t = tracker.tracking();
        Session target = tracker;
        if (t != null && t.redirect > 0) {
            target = clients.get(t.redirect);
            if (target == null) {
                return;
            }
        }
        Session to = target;
        Runnable write = () -> write(to, key);
        if (to == origin) {
            write.run(); // after the writer's own reply, as Redis defers it
        } else {
            to.deliver(write);
        }
    }

    private static void write(Session to, byte[] key) {
        ReplyBuffer out = to.out();
        if (to.protocol() == 3) {
            out.push(2).bulk(INVALIDATE);
        } else {
            out.array(3).bulk(MESSAGE).bulk(CHANNEL);
        }
        if (key == null) {
            out.nullArray();
        } else {
            out.array(1).bulk(key);
        }
    }

    void closed(Session s) {
        disable(s);
    }

    private static boolean startsWith(byte[] key, byte[] prefix) {
        if (prefix.length > key.length) {
            return false;
        }
        for (int i = 0; i < prefix.length; i++) {
            if (key[i] != prefix[i]) {
                return false;
            }
        }
        return true;
    }

    /** Number of keys in the tracking table (INFO's tracking_total_keys). */
    public long keys() {
        return readers.size();
    }

    /** Keys times the clients tracking each (INFO's tracking_total_items). */
    public long items() {
        long n = 0;
        for (Set<Long> ids : readers.values()) {
            n += ids.size();
        }
        return n;
    }

    public long prefixes() {
        long n = 0;
        for (Session s : broadcasting) {
            TrackingState t = s.tracking();
            if (t != null) {
                n += t.prefixes.size();
            }
        }
        return n;
    }

    public long clients() {
        return tracking.size();
    }

    static boolean overlap(List<byte[]> prefixes, byte[] p) {
        for (byte[] q : prefixes) {
            if (startsWith(p, q) || startsWith(q, p)) {
                return true;
            }
        }
        return false;
    }
}
