package dev.spinel.server.engine.eviction;

import dev.spinel.server.config.Param;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.engine.Session;
import dev.spinel.server.engine.ports.ClientConnection;
import dev.spinel.server.log.Log;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Redis 7.0's client eviction ({@code maxmemory-clients}): once the clients' memory ({@link ClientMemory}) passes
 * the limit, the largest clients are disconnected, one after the other, until it is below again; each is logged
 * ("Evicting client: ...") and counted in INFO's {@code evicted_clients}. Only normal and pub/sub clients count
 * and may be evicted: not those that set CLIENT NO-EVICT, replicas, MONITOR clients or the master's link. The
 * limit is bytes, or a percentage of {@code maxmemory}; a limit below 32 KiB is raised to it, as Redis's
 * smallest eviction bucket.
 *
 * <p>When: after each read a client's input takes (its query buffer grew), after its replies are handed to the
 * socket (its output grew), on each server cron tick (output pushed to it by others: pub/sub, invalidations),
 * and when CONFIG SET lowers the limit. The per-client check moves the total by the change in this client's
 * figure since its last check and compares it with the limit: a few field reads and, when the figure changed,
 * one atomic add; nothing at all while {@code maxmemory-clients} is 0 (the default).
 *
 * <p>Thread-safety: {@link #check} runs on any client's loop; a full pass ({@link #evictAll}) is serialized on
 * this object and kills clients through {@link Session#kill}, which is safe from any thread. The total and the
 * per-client shares are estimates read and written racily; each cron tick recomputes them.
 */
public final class ClientEviction {
    /** Redis's CLIENT_MEM_USAGE_BUCKET_MIN: the smallest limit it applies. */
    static final long MIN_LIMIT = 32 * 1024;

    private final Engine engine;
    private final ServerConfig config;
    private final Param setting;
    /** The setting's text the cached limit was parsed from (compared by identity: a new value is a new string). */
    private volatile String parsedFrom;
    private volatile long parsed;
    private volatile boolean percent;
    /** The eligible clients' total: summed by each full pass, moved by each client's check in between. */
    private final AtomicLong total = new AtomicLong();

    public ClientEviction(Engine engine) {
        this.engine = engine;
        this.config = engine.config();
        this.setting = config.param("maxmemory-clients");
    }

    /** A client eviction checked when a client grows (the engine's hook) and when maxmemory-clients is set. */
    public static ClientEviction install(Engine engine) {
        ClientEviction e = new ClientEviction(engine);
        engine.hooks().clientGrew(e::check);
        engine.config().onApply(e.setting, e::evictAll);
        return e;
    }

    /** The limit in bytes, or 0 when client eviction is off. */
    public long limit() {
        String v = setting.get();
        if (v != parsedFrom) {
            percent = v.endsWith("%");
            parsed = Long.parseLong(percent ? v.substring(0, v.length() - 1) : v);
            parsedFrom = v;
        }
        long l = percent ? config.maxmemory.value() / 100 * parsed + config.maxmemory.value() % 100 * parsed / 100 : parsed;
        return l == 0 ? 0 : Math.max(l, MIN_LIMIT);
    }

    /** A client's input or output just grew: evicts (possibly this client) if the clients are now over the limit. */
    public void check(Session s) {
        long limit = limit();
        if (limit == 0 || !eligible(s) || s.killed()) {
            return; // a killed client (e.g. closed at its output limit) no longer counts, as in evictAll
        }
        ClientConnection c = s.connection();
        long mine = ClientMemory.of(s, 0);
        long before = c.evictionShare();
        if (mine == before) {
            return;
        }
        c.evictionShare(mine);
        if (total.addAndGet(mine - before) > limit) {
            evictAll(limit);
        }
    }

    /** The cron's pass, and CONFIG SET's. */
    public void evictAll() {
        long limit = limit();
        if (limit > 0) {
            evictAll(limit);
        } else {
            total.set(0);
        }
    }

    private synchronized void evictAll(long limit) {
        List<Session> eligible = new ArrayList<>();
        long sum = 0;
        for (Session s : engine.clients().all()) {
            if (!eligible(s) || s.killed()) {
                continue;
            }
            long m = ClientMemory.of(s, 0);
            s.connection().evictionShare(m);
            sum += m;
            eligible.add(s);
        }
        if (sum > limit) {
            eligible.sort((a, b) -> Long.compare(b.connection().evictionShare(), a.connection().evictionShare()));
            for (Session s : eligible) {
                if (sum <= limit) {
                    break;
                }
                sum -= s.connection().evictionShare();
                evict(s);
            }
        }
        total.set(sum);
    }

    private void evict(Session s) {
        Log.notice("Evicting client: " + engine.hooks().clientInfo(s));
        engine.stats().evictedClients.increment();
        s.kill();
    }

    /** Redis's clientEvictionAllowed: a normal or pub/sub client that did not set CLIENT NO-EVICT. */
    private boolean eligible(Session s) {
        return !s.noEvict() && !s.isReplicationApplier() && !engine.hooks().isReplicaClient(s)
                && !engine.monitors().contains(s);
    }
}
