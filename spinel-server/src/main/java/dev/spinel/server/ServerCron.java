package dev.spinel.server;

import dev.spinel.server.engine.Engine;
import dev.spinel.server.engine.Session;
import dev.spinel.server.log.Log;

/**
 * Redis's {@code serverCron}: runs {@code hz} times a second on one event loop. Active expiry
 * with a CPU budget of a quarter of each tick (as Redis's slow cycle), idle-client timeouts, and the
 * sample of the clients' buffers in used_memory, and the CLIENT TRACKING table's size limit.
 *
 * <p>Thread-safety: runs on a single scheduler thread; touches shared state only through
 * thread-safe APIs (segment locks, the client registry).
 */
final class ServerCron implements Runnable {
    private static final int BUCKETS_PER_STEP = 16;
    private static final int TRACKING_EVICTIONS_PER_TICK = 10_000;
    private final Engine engine;
    /** Client eviction's pass (maxmemory-clients). */
    private final Runnable clientEviction;

    /** A cron without client eviction (an engine the server did not wire, in tests). */
    ServerCron(Engine engine) {
        this(engine, () -> { });
    }

    ServerCron(Engine engine, Runnable clientEviction) {
        this.engine = engine;
        this.clientEviction = clientEviction;
    }

    @Override
    public void run() {
        if (engine.debug().cronPaused()) { // DEBUG PAUSE-CRON 1, as Redis's serverCron returns at once
            return;
        }
        try {
            engine.keyspace().tickClock(); // the LRU clock keys are stamped with, as Redis's server.lruclock
            engine.stats().instantaneous.sample(System.currentTimeMillis(), engine.stats());
            // DEBUG SET-ACTIVE-EXPIRE 0 turns it off; a replica leaves expiry to its master's DELs, as Redis's
            // (but for the keys its own clients wrote), nor during CLIENT PAUSE, as Redis 7.0
            if (engine.debug().activeExpire() && !engine.replicaRole().active()
                    && !engine.keyspace().expiryDeletesSuspended(System.currentTimeMillis())) {
                activeExpire();
            } else if (engine.debug().activeExpire() && engine.replicaRole().active()) {
                // Redis's expireSlaveKeys: only the keys a writable replica's clients gave a time to live
                engine.replicaRole().keysWithExpire().expireSome(System.currentTimeMillis());
            }
            closeIdleClients();
            engine.outputLimits().cron(engine.clients().all()); // a subscriber over its soft limit while nothing is published
            engine.tracking().limitKeys(engine.config().trackingTableMaxKeys.value(), TRACKING_EVICTIONS_PER_TICK);
            engine.memory().sampleClients(); // Redis's clientsCron: INFO's mem_clients_normal, used_memory's part
            clientEviction.run(); // maxmemory-clients: output others pushed to a client, CLIENT NO-EVICT OFF
        } catch (RuntimeException e) {
            Log.warning("cron: " + e);
        }
    }

    private void activeExpire() {
        long hz = Math.max(1, Math.min(500, engine.config().hz.value()));
        long budgetNanos = 1_000_000_000L / hz / 4;
        long start = System.nanoTime();
        while (System.nanoTime() - start < budgetNanos) {
            int deleted = engine.keyspace().activeExpireCycle(System.currentTimeMillis(), BUCKETS_PER_STEP);
            if (deleted == 0) {
                break;
            }
        }
        // Redis's latency event of its active expiry cycle (LATENCY LATEST / HISTORY expire-cycle)
        long threshold = engine.config().latencyMonitorThreshold.value();
        long millis = (System.nanoTime() - start) / 1_000_000;
        if (threshold > 0 && millis >= threshold) {
            engine.latency().record("expire-cycle", millis);
        }
    }

    private void closeIdleClients() {
        long timeout = engine.config().timeout.value();
        if (timeout <= 0) {
            return;
        }
        long now = System.currentTimeMillis();
        for (Session s : engine.clients().all()) {
            // As Redis, clients waiting (CLIENT PAUSE, blocking commands) are not idle.
            if (now - s.lastInteraction() > timeout * 1000 && !s.suspended()) {
                s.kill();
            }
        }
    }
}
