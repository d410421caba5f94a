package dev.spinel.server.cluster;

import dev.spinel.cluster.ClusterNode;
import dev.spinel.cluster.EndpointType;
import dev.spinel.protocol.Args;
import dev.spinel.protocol.KeyPositions;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.engine.Command;
import dev.spinel.server.engine.CommandFlag;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.engine.Session;
import dev.spinel.server.engine.Transaction;
import dev.spinel.server.engine.clients.ClusterClientFlags;
import dev.spinel.server.engine.clock.CommandChain;
import dev.spinel.store.Database;
import dev.spinel.store.Entry;
import dev.spinel.store.KeyHash;
import dev.spinel.store.KeySlot;
import dev.spinel.store.Segment;

import java.util.Arrays;

/**
 * Cluster mode's check of every request, as Redis 7.0's processCommand and getNodeByQuery: the keys of
 * the command (from its key specs; for EXEC, of every queued command) must hash to one slot, which this
 * node must serve; otherwise {@code -MOVED}, {@code -ASK}, {@code -TRYAGAIN}, {@code -CROSSSLOT} or
 * {@code -CLUSTERDOWN} with Redis's texts. Shard channels (SPUBLISH, SSUBSCRIBE) count as keys, as in Redis.
 *
 * <p>Thread-safety: stateless apart from the routing snapshot it reads once per request; runs on the
 * client's event loop. A migrating or importing slot looks its keys up under their stripe lock.
 */
final class SlotRouter implements Engine.SlotRouter {
    static final String CROSSSLOT = "CROSSSLOT Keys in request don't hash to the same slot";
    static final String TRYAGAIN = "TRYAGAIN Multiple keys request during rehashing of slot";
    static final String DOWN = "CLUSTERDOWN The cluster is down";
    static final String DOWN_READONLY = "CLUSTERDOWN The cluster is down and only accepts read commands";
    static final String UNBOUND = "CLUSTERDOWN Hash slot not served";

    private final ClusterMode mode;
    private final ServerConfig config;
    private final Database db0;
    private final Command asking;
    private final Command multi;
    private final Command exec;
    private final Command discard;
    private final Command spublish;
    private final Command ssubscribe;
    private final Command sunsubscribe;
    private final Command migrate;

    SlotRouter(ClusterMode mode, ServerConfig config, Database db0, CommandTable table) {
        this.mode = mode;
        this.config = config;
        this.db0 = db0;
        this.asking = table.get("asking");
        this.multi = table.get("multi");
        this.exec = table.get("exec");
        this.discard = table.get("discard");
        this.spublish = table.get("spublish");
        this.ssubscribe = table.get("ssubscribe");
        this.sunsubscribe = table.get("sunsubscribe");
        this.migrate = table.get("migrate");
    }

    @Override
    public String refusal(Session s, Command cmd, Args args, boolean scriptWrites) {
        Transaction tx = s.transaction();
        ClusterClientFlags flags = s.cluster();
        boolean askingNow = flags.asking();
        flags.askingCommand(askingNow);
        // Redis clears ASKING after each command but ASKING itself, and keeps it through a transaction.
        if (cmd != asking && cmd != multi && (tx == null || cmd == exec || cmd == discard)) {
            flags.asking(false);
        }
        flags.slot(-1);
        boolean isExec = cmd == exec;
        int single = isExec ? -1 : KeyPositions.singleKey(cmd.spec(), args);
        if (isExec) {
            if (tx == null) {
                return null;
            }
        } else if (single < 0 && !cmd.has(CommandFlag.MOVABLEKEYS) && !hasKeySpecs(cmd)) {
            return null;
        } else if (single > 0) {
            // The common case (one key, a slot this node serves, no migration, cluster ok): every rule of route
            // would let it run here, so it is settled without the general walk's key array. (Scripts go through
            // route: they need the slot recorded.)
            SlotRouting r = mode.routing();
            if (r != null && r.servedHere[KeySlot.of(args.buffer(), args.offset(single), args.length(single))]
                    && leaseNanos(cmd.has(CommandFlag.WRITE) || scriptWrites) / 1_000_000 <= mode.leaseUntilMs()) {
                return null;
            }
        }
        return route(s, cmd, args, isExec ? tx : null, askingNow, flags.readOnly(), scriptWrites, s.now());
    }

    /**
     * The time the lease is checked against, never the session's last (which may predate a pause): for a write the
     * clock now, so that no write is taken once the lease has run out; for a read the event loop's latest reading
     * within this read batch ({@link CommandChain#recentNanos}: a read batch begun before a pause may still be read
     * after it, as Redis serves a batch it has read before its cron notices), sparing the ~0.1 µs clock read per
     * request that was a sixth of a pipelined GET's time on the loop.
     */
    private static long leaseNanos(boolean write) {
        CommandChain chain = write ? null : CommandChain.current();
        return chain != null ? chain.recentNanos() : System.nanoTime();
    }

    /**
     * Redis's scriptVerifyClusterState, with its texts: a command a script calls must find its keys served here
     * (the caller's READONLY and ASKING apply), and unless the script allows cross-slot keys, every key the script
     * touches must hash to the slot of the first ones (the keys it declared, else the first it touched).
     */
    @Override
    public String scriptRefusal(Session caller, Session script, Command cmd, Args args, boolean allowCrossSlot) {
        if (!cmd.has(CommandFlag.MOVABLEKEYS) && !hasKeySpecs(cmd)) {
            return null;
        }
        ClusterClientFlags mine = script.cluster();
        ClusterClientFlags callers = caller.cluster();
        mine.slot(-1);
        String refused = route(script, cmd, args, null, callers.askingCommand(), callers.readOnly(), false, caller.now());
        if (refused != null) {
            return switch (refused) {
                case DOWN -> "ERR Script attempted to execute a command while the cluster is down";
                case DOWN_READONLY -> "ERR Script attempted to execute a write command while the cluster is down and readonly";
                default -> "ERR Script attempted to access a non local key in a cluster node";
            };
        }
        int slot = mine.slot();
        if (slot != -1 && !allowCrossSlot) {
            if (callers.slot() == -1) {
                callers.slot(slot);
            } else if (callers.slot() != slot) {
                return "ERR Script attempted to access keys that do not hash to the same slot";
            }
        }
        return null;
    }

    /**
     * Redis's getNodeByQuery for {@code cmd} (for EXEC, {@code tx}'s queued commands): null to run it here,
     * else the error. Once the keys' slot is known and the cluster state allows the command, it is recorded in
     * {@code s}'s cluster flags.
     */
    private String route(Session s, Command cmd, Args args, Transaction tx, boolean askingNow, boolean readOnly,
                         boolean scriptWrites, long now) {
        boolean isExec = tx != null;
        SlotRouting r = mode.routing();
        if (r == null) {
            return DOWN; // the topology is not started yet
        }
        boolean shard = cmd == spublish || cmd == ssubscribe || cmd == sunsubscribe;
        byte[] firstBuf = null;
        int firstOff = 0;
        int firstLen = 0;
        int slot = 0;
        ClusterNode n = null;
        boolean migrating = false;
        boolean importing = false;
        boolean multipleKeys = false;
        int missing = 0;
        int existing = 0;
        int count = isExec ? tx.size() : 1;
        for (int c = 0; c < count; c++) {
            Command qc = isExec ? tx.command(c) : cmd;
            Args qa = isExec ? tx.args(c) : args;
            int[] keys;
            try {
                keys = KeyPositions.of(qc.spec(), qa);
            } catch (IllegalArgumentException e) {
                continue; // the command itself reports its bad key count
            }
            for (int k : keys) {
                byte[] buf = qa.buffer();
                int off = qa.offset(k);
                int len = qa.length(k);
                int thisSlot = KeySlot.of(buf, off, len);
                if (firstBuf == null) {
                    firstBuf = buf;
                    firstOff = off;
                    firstLen = len;
                    slot = thisSlot;
                    n = r.owner[slot];
                    if (n == null) {
                        return UNBOUND;
                    }
                    if (r.mine[slot] && r.migratingTo[slot] != null) {
                        migrating = true;
                    } else if (r.importing[slot]) {
                        importing = true;
                    }
                } else if (!Arrays.equals(firstBuf, firstOff, firstOff + firstLen, buf, off, off + len)) {
                    if (slot != thisSlot) {
                        return CROSSSLOT;
                    }
                    multipleKeys = true;
                }
                if ((migrating || importing) && !shard) {
                    if (exists(buf, off, len, now)) {
                        existing++;
                    } else {
                        missing++;
                    }
                }
            }
        }
        if (n == null) {
            return null;
        }
        boolean write = cmd.has(CommandFlag.WRITE) || scriptWrites || (isExec && tx.queuesWrite());
        if (!r.ok || System.nanoTime() / 1_000_000 > mode.leaseUntilMs()) { // the lease: contact known recent enough
            if (shard) {
                if (!config.clusterAllowPubsubshardWhenDown.value()) {
                    return DOWN;
                }
            } else if (!config.clusterAllowReadsWhenDown.value()) {
                return DOWN;
            } else if (write) {
                return DOWN_READONLY;
            }
        }
        s.cluster().slot(slot);
        if ((migrating || importing) && cmd == migrate) {
            return null;
        }
        if (migrating && missing > 0) {
            if (existing > 0) {
                return TRYAGAIN;
            }
            // Asked to itself (a slot migrating to this very node) the request runs here, as in Redis.
            ClusterNode to = r.migratingTo[slot];
            return to.id().equals(r.myId) ? null : redirect("ASK", slot, to, mode.endpointType());
        }
        if (importing && (askingNow || cmd.has(CommandFlag.ASKING))) {
            return multipleKeys && missing > 0 ? TRYAGAIN : null;
        }
        if ((readOnly || shard) && !write && r.myPrimary != null && r.myPrimary.id().equals(n.id())) {
            return null;
        }
        if (r.mine[slot]) {
            return null;
        }
        ClusterNode handedTo = r.askTo == null ? null : r.askTo[slot];
        return handedTo != null ? redirect("ASK", slot, handedTo, mode.endpointType())
                : redirect("MOVED", slot, n, mode.endpointType());
    }

    /** {@code MOVED|ASK <slot> <endpoint>:<port>}, the endpoint as cluster-preferred-endpoint-type says. */
    static String redirect(String kind, int slot, ClusterNode n, EndpointType endpoint) {
        return kind + " " + slot + " " + n.endpoint(endpoint) + ":" + n.port();
    }

    private static boolean hasKeySpecs(Command cmd) {
        return KeyPositions.hasKeySpecs(cmd.spec());
    }


    /** Whether db 0 holds the key, unexpired, without touching it (Redis's LOOKUP_NOTOUCH|NOEXPIRE). */
    private boolean exists(byte[] buf, int off, int len, long now) {
        int hash = KeyHash.hash(buf, off, len);
        Segment seg = db0.segment(hash);
        seg.lock();
        try {
            Entry e = seg.find(buf, off, len, hash);
            return e != null && (e.expireAt() < 0 || e.expireAt() > now);
        } finally {
            seg.unlock();
        }
    }
}
