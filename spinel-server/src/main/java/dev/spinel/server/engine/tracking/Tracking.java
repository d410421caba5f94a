package dev.spinel.server.engine.tracking;

import dev.spinel.server.engine.clients.ClientRegistry;
import dev.spinel.store.ByteKey;
import dev.spinel.protocol.ReplyBuffer;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Server-assisted client-side caching (CLIENT TRACKING), as Redis 7.0 does it: in the default mode
 * the server remembers which clients read which keys and sends each one invalidation when the key
 * changes (then forgets it); in BCAST mode clients get invalidations for every changed key under
 * their prefixes. Invalidations are RESP3 pushes ({@code invalidate}) or, for a RESP2 client
 * redirecting to a subscribed connection, messages on {@code __redis__:invalidate}. Flushes send a null
 * key to every tracking client.
 *
 * <p>BCAST invalidations are batched as Redis batches them per event-loop turn: the keys a thread's
 * commands change are gathered per prefix ({@link BroadcastBatch}) and sent as one message per prefix and
 * client when the writer's read batch is answered ({@link #flushBroadcasts}, called by the connection
 * before it sends the batch's replies; a task on the writer's loop is the backstop). So a pipeline of one
 * writer connection gives Redis's grouping; writers on different event loops are batched apart.
 *
 * <p>Thread-safety: concurrent maps; deliveries to other sessions run on their own loops; the BCAST batch
 * is per thread. The engine calls {@link #keyRead} and {@link #keyChanged} from any loop.
 */
public final class Tracking {
    private static final byte[] INVALIDATE = "invalidate".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] MESSAGE = "message".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] CHANNEL = "__redis__:invalidate".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] REDIR_BROKEN = "tracking-redir-broken".getBytes(StandardCharsets.US_ASCII);

    private final ClientRegistry<? extends TrackedClient> clients;
    private final Map<ByteKey, Set<Long>> readers = new ConcurrentHashMap<>();
    /** BCAST prefix ("" without PREFIX) → its clients: Redis's PrefixTable. Changed under its own lock. */
    private final Map<ByteKey, Set<TrackedClient>> prefixes = new ConcurrentHashMap<>();
    /** !prefixes.isEmpty(), in one volatile read: the cost of BCAST support to everyone else. */
    private volatile boolean broadcasts;
    private final ThreadLocal<BroadcastBatch> batches = ThreadLocal.withInitial(BroadcastBatch::new);
    private final Runnable flushTask = this::flushBroadcasts;
    private final Set<TrackedClient> tracking = ConcurrentHashMap.newKeySet();

    public Tracking(ClientRegistry<? extends TrackedClient> clients) {
        this.clients = clients;
    }

    /**
     * True when some client tracks or the table still holds keys read while one did: as Redis, a write or a
     * flush takes a key out of the table even when its readers stopped tracking since (INFO's
     * tracking_total_keys/items count what is left). Otherwise the per-command cost is these two checks.
     */
    public boolean active() {
        return !tracking.isEmpty() || !readers.isEmpty();
    }

    public void enable(TrackedClient s, TrackingState state) {
        disable(s);
        s.tracking(state);
        tracking.add(s);
        if (state.bcast) {
            synchronized (prefixes) {
                for (byte[] p : state.prefixes) { // BCAST without PREFIX: the one prefix ""
                    prefixes.computeIfAbsent(new ByteKey(p), k -> ConcurrentHashMap.newKeySet()).add(s);
                }
                broadcasts = true;
            }
        }
    }

    public void disable(TrackedClient s) {
        TrackingState state = s.tracking();
        if (state != null) {
            tracking.remove(s);
            if (state.bcast) {
                synchronized (prefixes) {
                    prefixes.values().removeIf(clientsOf -> clientsOf.remove(s) && clientsOf.isEmpty());
                    broadcasts = !prefixes.isEmpty();
                }
            }
            s.tracking(null);
        }
    }

    /** A tracking session read a key: remember it (one-shot) unless its mode says otherwise. */
    public void keyRead(TrackedClient s, byte[] key) {
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
    public void keyChanged(TrackedClient origin, byte[] key) {
        Set<Long> ids = readers.remove(new ByteKey(key));
        if (ids != null) {
            // NOLOOP compares with the client whose command runs (a script's caller), as Redis's current_client
            TrackedClient current = origin == null || origin.scriptCaller() == null ? origin : origin.scriptCaller();
            for (long id : ids) {
                TrackedClient target = clients.get(id);
                TrackingState t = target == null ? null : target.tracking();
                if (t == null || t.bcast) {
                    continue; // keys it read before switching to BCAST are not its concern now (as Redis)
                }
                if (target == current && t.noloop) {
                    continue;
                }
                send(target, origin, List.of(key));
            }
        }
        if (broadcasts) {
            rememberForBroadcast(origin, key);
        }
    }

    /** Redis's trackingRememberKeyToBroadcast: the key joins this thread's batch under each prefix it has. */
    private void rememberForBroadcast(TrackedClient origin, byte[] key) {
        BroadcastBatch batch = batches.get();
        boolean wasEmpty = batch.isEmpty();
        ByteKey k = null;
        for (ByteKey prefix : prefixes.keySet()) {
            if (startsWith(key, prefix.bytes())) {
                if (k == null) {
                    k = new ByteKey(key);
                }
                batch.add(prefix, k, origin);
            }
        }
        if (!wasEmpty || batch.isEmpty()) {
            return; // a send of this batch is already due
        }
        TrackedClient client = origin == null || origin.scriptCaller() == null ? origin : origin.scriptCaller();
        if (client != null && client.executingOn() == Thread.currentThread()) {
            // Sent when this read batch is answered (flushBroadcasts), at the latest after this loop turn.
            client.connection().execute(flushTask);
        } else {
            flushBroadcasts(); // not a client's command (expiry, another front end): at once
        }
    }

    /**
     * Sends the BCAST invalidations gathered by this thread's commands (Redis's
     * trackingBroadcastInvalidationMessages): per prefix, one message listing its changed keys to each of
     * its clients (without the keys a NOLOOP client changed itself). One volatile read when no client
     * uses BCAST.
     */
    public void flushBroadcasts() {
        if (!broadcasts) {
            return;
        }
        BroadcastBatch batch = batches.get();
        if (batch.isEmpty()) {
            return;
        }
        for (Map.Entry<ByteKey, TreeMap<ByteKey, TrackedClient>> pending : batch.drain().entrySet()) {
            Set<TrackedClient> clientsOf = prefixes.get(pending.getKey());
            if (clientsOf == null) {
                continue;
            }
            List<byte[]> all = null;
            for (TrackedClient c : clientsOf) {
                TrackingState t = c.tracking();
                if (t == null || !t.bcast) {
                    continue;
                }
                List<byte[]> keys;
                if (t.noloop) {
                    keys = new ArrayList<>();
                    for (Map.Entry<ByteKey, TrackedClient> e : pending.getValue().entrySet()) {
                        if (e.getValue() != c) {
                            keys.add(e.getKey().bytes());
                        }
                    }
                    if (keys.isEmpty()) {
                        continue;
                    }
                } else {
                    if (all == null) {
                        all = new ArrayList<>(pending.getValue().size());
                        for (ByteKey key : pending.getValue().keySet()) {
                            all.add(key.bytes());
                        }
                    }
                    keys = all;
                }
                send(c, null, keys);
            }
        }
    }

    /** FLUSHDB/FLUSHALL: every tracking client gets a null invalidation; the table is dropped. */
    public void flushed(TrackedClient origin) {
        readers.clear();
        for (TrackedClient s : tracking) {
            send(s, origin, null);
        }
    }

    /** Sends an invalidation of {@code keys} (null: everything) to a tracking client, or where it redirects. */
    private void send(TrackedClient tracker, TrackedClient origin, List<byte[]> keys) {
        TrackingState t = tracker.tracking();
        TrackedClient target = tracker;
        boolean redirected = t != null && t.redirect > 0;
        Runnable write;
        if (redirected && (target = clients.get(t.redirect)) == null) {
            if (tracker.protocol() != 3) {
                return;
            }
            // Redis's sendTrackingMessage: the redirect target is gone, and a RESP3 client is told so instead
            long redirect = t.redirect;
            target = tracker;
            write = () -> writeRedirBroken(tracker, redirect);
        } else {
            TrackedClient to = target;
            write = () -> write(to, keys, redirected);
        }
        if (target != origin) {
            target.deliver(write);
        } else if (origin.executingOn() != Thread.currentThread()) {
            // A served blocked command (BLMOVE...) changed its own keys on the serving thread: the push goes
            // right after the reply its loop appends once served, as in Redis.
            origin.afterServedReply(write);
        } else if (origin.executingTransaction()) {
            origin.afterReply(write); // the writer's own keys inside EXEC: after EXEC's whole reply, as Redis
        } else {
            write.run(); // after the writer's own reply, as Redis defers it
        }
    }

    /** The push {@code tracking-redir-broken <id>} (RESP3 only), on the tracking client's loop. */
    private static void writeRedirBroken(TrackedClient to, long redirect) {
        to.beginPush();
        to.out().push(2).bulk(REDIR_BROKEN).integer(redirect);
        to.endPush();
    }

    /**
     * Redis's sendTrackingMessage, on the receiver's loop: a push in RESP3; in RESP2 a message on
     * {@code __redis__:invalidate}, only to a redirect target that is subscribed (a RESP2 connection has no
     * other way to receive it).
     */
    private static void write(TrackedClient to, List<byte[]> keys, boolean redirected) {
        ReplyBuffer out = to.out();
        if (to.protocol() == 3) {
            to.beginPush();
            out.push(2).bulk(INVALIDATE);
        } else if (redirected && to.hasSubscriptions()) {
            to.beginPush();
            out.array(3).bulk(MESSAGE).bulk(CHANNEL);
        } else {
            return;
        }
        if (keys == null) {
            out.nullBulk(); // $-1 in RESP2, as Redis's addReplyNull
        } else {
            out.array(keys.size());
            for (byte[] key : keys) {
                out.bulk(key);
            }
        }
        to.endPush();
    }

    public void closed(TrackedClient s) {
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

    /**
     * Redis's trackingLimitUsedSlots (server cron): while the table holds more than {@code max} keys (0: no
     * limit), keys are dropped from it, each invalidated for its clients as if it had changed; at most
     * {@code effort} keys per call, so one tick stays short. True if it was over the limit.
     */
    public boolean limitKeys(long max, int effort) {
        if (max <= 0 || readers.size() <= max) {
            return false;
        }
        Iterator<ByteKey> it = readers.keySet().iterator();
        while (readers.size() > max && effort-- > 0 && it.hasNext()) {
            keyChanged(null, it.next().bytes());
        }
        return true;
    }

    /**
     * True while some client tracks (Redis's server.tracking_clients): Redis's processCommand then applies
     * {@link #limitKeys} before every command, a queued one too, so a lowered tracking-table-max-keys takes
     * effect before the next command's reply and not only at the next cron tick.
     */
    public boolean hasClients() {
        return !tracking.isEmpty();
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

    /** Distinct BCAST prefixes, "" included (INFO's tracking_total_prefixes, Redis's PrefixTable size). */
    public long prefixes() {
        return prefixes.size();
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
