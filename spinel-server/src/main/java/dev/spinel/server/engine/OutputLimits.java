package dev.spinel.server.engine;

import dev.spinel.server.config.OutputBufferLimitsParam;
import dev.spinel.server.config.OutputBufferLimitsParam.Limit;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.engine.pubsub.PubSub;
import dev.spinel.server.log.Log;

/**
 * {@code client-output-buffer-limit} for the pubsub and normal classes: a client whose unsent output
 * passes the hard limit, or stays above the soft limit for longer than the soft seconds, is closed, so
 * a slow reader cannot grow the server's memory without bound. Pub/sub deliveries are checked here
 * ({@link PubSub}); a connection checks its own replies to commands against {@link #normal()}.
 * Redis's defaults: {@code normal 0 0 0} (no limit), {@code pubsub 32mb 8mb 60}.
 *
 * <p>Thread-safety: the limits are read from the parameter's parsed, immutable values (one volatile
 * read, so CONFIG SET applies at the next check); the per-session soft-limit timestamp is only touched
 * on the session's own loop.
 */
public final class OutputLimits implements PubSub.OutputLimit<Session> {
    private final ServerConfig config;

    public OutputLimits(ServerConfig config) {
        this.config = config;
    }

    @Override
    public boolean exceeded(Session s, long pending) {
        Outbox o = s.outbox;
        if (o != null && o.outputLimitReached()) {
            return true; // already being closed: logged once, its queued deliveries dropped
        }
        if (exceeded(s, pending, config.clientOutputBufferLimit.limit(OutputBufferLimitsParam.PUBSUB))) {
            s.outbox().outputLimitReached(true);
            logClosing(s);
            return true;
        }
        return false;
    }

    /**
     * The cron's check of the subscribers, as Redis's clientsCron: a subscriber whose output stays above the soft
     * limit while nothing more is published to it is closed once the soft seconds pass (a publish checks it
     * otherwise). The check itself runs on the subscriber's own loop, which owns its soft-limit clock; only
     * subscribers holding at least the smaller limit's bytes get one.
     */
    public void cron(Iterable<Session> clients) {
        Limit l = config.clientOutputBufferLimit.limit(OutputBufferLimitsParam.PUBSUB);
        long floor = l.softBytes() > 0 && (l.hardBytes() == 0 || l.softBytes() < l.hardBytes()) ? l.softBytes() : l.hardBytes();
        if (floor == 0) {
            return;
        }
        for (Session s : clients) {
            if (s.hasSubscriptions() && !s.killed() && s.connection().pendingOutputBytes() >= floor) {
                s.connection().execute(() -> {
                    if (!s.killed() && s.hasSubscriptions() && exceeded(s, s.connection().pendingOutputBytes())) {
                        s.kill();
                    }
                });
            }
        }
    }

    /** The normal class's limits, or null when it has none (the default): the caller then checks nothing. */
    public Limit normal() {
        Limit l = config.clientOutputBufferLimit.limit(OutputBufferLimitsParam.NORMAL);
        return l.hardBytes() == 0 && l.softBytes() == 0 ? null : l;
    }

    /**
     * True when a hard limit holds this client's replies (it is closed, and a running command's output
     * discarded, once they pass it): a command may then build a reply Spinel would otherwise refuse as
     * too large, as Redis does.
     */
    public boolean bounds(Session s) {
        Limit l = normal();
        // only a connection that watches its buffer's growth cuts a reply mid-command
        return l != null && l.hardBytes() > 0 && !s.hasSubscriptions() && s.out().watched();
    }

    /**
     * Redis's checkClientOutputBufferLimits: past the hard limit, or above the soft limit since longer
     * than its seconds (the first time above it starts the clock; going below stops it).
     */
    public static boolean exceeded(Session s, long pending, Limit l) {
        if (l.hardBytes() > 0 && pending >= l.hardBytes()) {
            return true;
        }
        if (l.softBytes() > 0 && pending >= l.softBytes()) {
            long now = System.currentTimeMillis();
            Outbox o = s.outbox();
            if (o.overSoftLimitSince() == 0) {
                o.overSoftLimitSince(now);
                return false;
            }
            return now - o.overSoftLimitSince() >= l.softSeconds() * 1000;
        }
        Outbox o = s.outbox; // below the soft limit: nothing to reset on a client that never passed it
        if (o != null) {
            o.overSoftLimitSince(0);
        }
        return false;
    }

    /** Redis's warning, with the client's CLIENT LIST line. */
    public static void logClosing(Session s) {
        Log.warning("Client " + s.engine().hooks().clientInfo(s) + " scheduled to be closed ASAP for overcoming of output buffer limits.");
    }
}
