package dev.spinel.server.cluster;

import dev.spinel.cluster.ClusterNode;
import dev.spinel.cluster.EndpointType;
import dev.spinel.protocol.Args;
import dev.spinel.server.engine.Blocking;
import dev.spinel.server.engine.Command;
import dev.spinel.server.engine.CommandFlag;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Session;
import dev.spinel.store.KeySlot;

import java.util.function.Supplier;

/**
 * Clients blocked on keys (BLPOP, BLMOVE, BZPOPMIN, XREAD BLOCK ...; not WAIT) whose slot this node no longer
 * serves, as Redis 7.0's clusterRedirectBlockedClientIfNeeded: the wait ends with {@code -MOVED <slot> <endpoint>:<port>}
 * when another node serves the slot (SETSLOT NODE, a reshard), {@code -CLUSTERDOWN Hash slot not served} when
 * nobody does, {@code -CLUSTERDOWN The cluster is down} when the cluster is down. A slot this node imports keeps
 * its waiters; a READONLY client's read (XREAD) on a replica of the slot's primary keeps waiting. The client stays
 * connected. A failover that makes this node a replica ends every wait earlier, as Redis (REPLICAOF's
 * {@code -UNBLOCKED}).
 *
 * <p>Runs on the cluster cron thread only ({@link #sweep}): each time the routing changes, and once a second
 * besides, as Redis's clientsCron, for a client that blocked after the change with a check made just before it.
 * Nothing is done while no client is blocked. Not thread-safe: one caller thread.
 */
final class BlockedRedirects implements Blocking.KeyWaitCheck {
    private static final long RECHECK_MS = 1000;

    private final Blocking blocking;
    private final CommandTable table;
    private final Supplier<EndpointType> endpoint;
    /** The routing the waiters were last checked against, and when (ms). */
    private SlotRouting checked;
    private long checkedAtMs;
    /** The routing of the sweep under way. */
    private SlotRouting current;

    BlockedRedirects(Blocking blocking, CommandTable table, Supplier<EndpointType> endpoint) {
        this.blocking = blocking;
        this.table = table;
        this.endpoint = endpoint;
    }

    /** Ends the waits the routing {@code r} no longer allows, if it changed or a second has passed. */
    void sweep(SlotRouting r, long nowMs) {
        if (r == null || blocking.blockedClients() == 0 || (r == checked && nowMs - checkedAtMs < RECHECK_MS)) {
            return;
        }
        checked = r;
        checkedAtMs = nowMs;
        current = r;
        blocking.refuseKeyWaits(this);
    }

    @Override
    public String refusal(Session session, byte[] firstKey, Args command) {
        SlotRouting r = current;
        if (!r.ok) {
            return SlotRouter.DOWN; // even with cluster-allow-reads-when-down: the write it waits for may never come
        }
        int slot = KeySlot.of(firstKey, 0, firstKey.length);
        if (r.mine[slot] || r.importing[slot]) {
            return null;
        }
        ClusterNode owner = r.owner[slot];
        if (owner == null) {
            return SlotRouter.UNBOUND;
        }
        if (session.cluster().readOnly() && r.myPrimary != null && r.myPrimary.id().equals(owner.id())
                && !isWrite(command)) {
            return null;
        }
        return SlotRouter.redirect("MOVED", slot, owner, endpoint.get());
    }

    private boolean isWrite(Args command) {
        Command c = command == null ? null : table.lookup(command);
        return c == null || c.has(CommandFlag.WRITE);
    }
}
