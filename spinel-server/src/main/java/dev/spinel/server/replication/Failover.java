package dev.spinel.server.replication;

import dev.spinel.protocol.Args;
import dev.spinel.server.engine.clients.ClientPause;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.RedisError;
import dev.spinel.server.log.Log;

import java.util.Collection;

/**
 * FAILOVER [TO host port [FORCE]] [ABORT] [TIMEOUT ms], as Redis 7.0: the master pauses client writes,
 * waits until a replica (the one named, or the first) acknowledged its whole stream, then becomes that
 * replica's replica with {@code PSYNC <its replid> <offset+1> FAILOVER}, which makes the target take over and
 * answer +CONTINUE; the writes resume then (now refused with READONLY). A timeout without the target caught
 * up aborts (or, with FORCE, fails over anyway); a target that refuses the PSYNC aborts, and the server is
 * a master again. Argument checks and error texts are Redis's failoverCommand's.
 *
 * <p>Thread-safety: every method is synchronized; called from the command's loop, the ACK path, the cron
 * and the master link's thread.
 */
final class Failover {
    private enum State {
        NONE("no-failover"), WAIT_FOR_SYNC("waiting-for-sync"), IN_PROGRESS("failover-in-progress");

        final String info;

        State(String info) {
            this.info = info;
        }
    }

    private final Replication replication;
    private final Engine engine;
    private final Collection<ReplicaLink> replicas;
    private State state = State.NONE;
    private String host;
    private int port;
    private long endTime;
    private boolean force;

    Failover(Replication replication, Engine engine, Collection<ReplicaLink> replicas) {
        this.replication = replication;
        this.engine = engine;
        this.replicas = replicas;
    }

    /** INFO's master_failover_state. */
    synchronized String stateName() {
        return state.info;
    }

    /** True while the PSYNC FAILOVER is to be sent (the master link's first handshake after the switch). */
    synchronized boolean inProgress() {
        return state == State.IN_PROGRESS;
    }

    synchronized void command(Session s, Args a) {
        if (engine.config().clusterEnabled.value()) {
            throw new RedisError("ERR FAILOVER not allowed in cluster mode.");
        }
        if (a.count() == 2 && a.is(1, "ABORT")) {
            if (state == State.NONE) {
                throw new RedisError("ERR No failover in progress.");
            }
            abort("Failover manually aborted");
            s.out().ok();
            return;
        }
        long timeout = 0;
        boolean forceFlag = false;
        String toHost = null;
        long toPort = 0;
        for (int j = 1; j < a.count(); j++) {
            if (a.is(j, "TIMEOUT") && j + 1 < a.count() && timeout == 0) {
                try {
                    timeout = a.parseLong(j + 1);
                } catch (NumberFormatException e) {
                    throw new RedisError("ERR value is not an integer or out of range");
                }
                if (timeout <= 0) {
                    throw new RedisError("ERR FAILOVER timeout must be greater than 0");
                }
                j++;
            } else if (a.is(j, "TO") && j + 2 < a.count() && toHost == null) {
                try {
                    toPort = a.parseLong(j + 2);
                } catch (NumberFormatException e) {
                    throw new RedisError("ERR value is not an integer or out of range");
                }
                toHost = a.string(j + 1);
                j += 2;
            } else if (a.is(j, "FORCE") && !forceFlag) {
                forceFlag = true;
            } else {
                throw new RedisError("ERR syntax error");
            }
        }
        if (state != State.NONE) {
            throw new RedisError("ERR FAILOVER already in progress.");
        }
        if (replication.isReplica()) {
            throw new RedisError("ERR FAILOVER is not valid when server is a replica.");
        }
        if (replicas.isEmpty()) {
            throw new RedisError("ERR FAILOVER requires connected replicas.");
        }
        if (forceFlag && (timeout == 0 || toHost == null)) {
            throw new RedisError("ERR FAILOVER with force option requires both a timeout and target HOST and IP.");
        }
        if (toHost != null) {
            ReplicaLink target = find(toHost, toPort);
            if (target == null) {
                throw new RedisError("ERR FAILOVER target HOST and PORT is not a replica.");
            }
            if (!target.online()) {
                throw new RedisError("ERR FAILOVER target replica is not online.");
            }
            host = toHost;
            port = (int) toPort;
            Log.notice("FAILOVER requested to " + host + ":" + port + ".");
        } else {
            Log.notice("FAILOVER requested to any replica.");
        }
        endTime = timeout > 0 ? System.currentTimeMillis() + timeout : 0;
        force = forceFlag;
        state = State.WAIT_FOR_SYNC;
        engine.pause().pause(Long.MAX_VALUE, ClientPause.WRITE); // client writes wait, as Redis's PAUSE_DURING_FAILOVER
        if (timeout > 0) {
            replication.later(this::check, timeout);
        }
        s.out().ok();
        check();
    }

    private ReplicaLink find(String h, long p) {
        for (ReplicaLink l : replicas) {
            if (l.ip().equalsIgnoreCase(h) && l.listeningPort == p) {
                return l;
            }
        }
        return null;
    }

    /** Redis's updateFailoverStatus: the timeout, or a target that acknowledged our whole stream. */
    synchronized void check() {
        if (state != State.WAIT_FOR_SYNC) {
            return;
        }
        if (endTime > 0 && endTime <= System.currentTimeMillis()) {
            if (force) {
                Log.notice("FAILOVER to " + host + ":" + port + " time out exceeded, failing over.");
                switchTo();
            } else {
                abort("Replica never caught up before timeout");
            }
            return;
        }
        long offset = replication.offset();
        ReplicaLink replica = null;
        if (host != null) {
            replica = find(host, port);
        } else {
            for (ReplicaLink l : replicas) {
                if (l.online() && l.ackOffset == offset) {
                    replica = l;
                    host = l.ip();
                    port = l.listeningPort;
                    break;
                }
            }
        }
        if (replica != null && replica.ackOffset == offset) {
            Log.notice("Failover target " + host + ":" + port + " is synced, failing over.");
            switchTo();
        }
    }

    private void switchTo() {
        state = State.IN_PROGRESS;
        replication.replicaOf(host, port);
    }

    /** The target answered the PSYNC FAILOVER: taken over (writes resume, now as a replica), or refused (abort). */
    synchronized void answered(boolean accepted) {
        if (state != State.IN_PROGRESS) {
            return;
        }
        if (accepted) {
            clear();
        } else {
            abort("Failover target rejected psync request");
        }
    }

    /** Redis's abortFailover: a master again (if the switch was made), writes resume. */
    synchronized void abort(String why) {
        if (state == State.NONE) {
            return;
        }
        Log.notice(host != null ? "FAILOVER to " + host + ":" + port + " aborted: " + why : "FAILOVER to any replica aborted: " + why);
        if (state == State.IN_PROGRESS) {
            replication.promote("failover aborted");
        }
        clear();
    }

    private void clear() {
        state = State.NONE;
        host = null;
        port = 0;
        endTime = 0;
        force = false;
        engine.pause().unpause();
    }
}
