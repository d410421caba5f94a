package dev.spinel.server.commands.connection;

import java.util.Locale;

import dev.spinel.protocol.Args;
import dev.spinel.server.engine.pubsub.PubSub;
import dev.spinel.server.engine.Session;
import dev.spinel.server.engine.tracking.TrackingState;
import dev.spinel.server.engine.Transaction;
import dev.spinel.server.engine.eviction.ClientMemory;
import dev.spinel.server.engine.ports.ClientConnection;

/**
 * One client's line of CLIENT LIST / CLIENT INFO, with Redis 7.0.15's fields in its order:
 * {@code id addr laddr fd name age idle flags db sub psub ssub multi qbuf qbuf-free argv-mem
 * multi-mem rbs rbp obl oll omem tot-mem events cmd user redir resp}.
 *
 * <p>Values that describe Redis's own memory structures are Spinel's nearest equivalents: qbuf and
 * qbuf-free come from the connection's receive buffer, rbs/obl from the session's reply buffer,
 * omem from bytes queued in the transport. {@code fd} is the socket's descriptor with the native
 * (epoll) transport; with the NIO transport, which hides it, it is a synthetic {@code 1000 + id}.
 * Also the client type used by LIST TYPE and KILL TYPE.
 *
 * <p>Thread-safety: reads another session's volatile/informational fields; may run on any loop.
 */
public final class ClientInfo {
    static final int NORMAL = 0;
    static final int REPLICA = 1;
    static final int PUBSUB = 2;
    static final int MASTER = 3;

    private ClientInfo() {
    }

    /** Redis's getClientTypeByName: -1 when unknown. */
    static int typeByName(String name) {
        return switch (name.toLowerCase(Locale.ROOT)) {
            case "normal" -> NORMAL;
            case "slave", "replica" -> REPLICA;
            case "pubsub" -> PUBSUB;
            case "master" -> MASTER;
            default -> -1;
        };
    }

    /** Redis's client type: a subscriber is PUBSUB, a MONITOR client counts as a replica, the master's link is MASTER; else normal. */
    static int type(Session s) {
        if (s.engine().monitors().contains(s) || s.engine().hooks().isReplicaClient(s)) {
            return REPLICA;
        }
        if (s.isReplicationApplier()) {
            return MASTER;
        }
        return s.hasSubscriptions() ? PUBSUB : NORMAL;
    }

    /** The client's CLIENT LIST line, without the newline (ACL LOG's client-info). */
    public static String line(Session s) {
        return append(new StringBuilder(), s, System.currentTimeMillis(), null).toString();
    }

    /**
     * Appends the client's line (without the trailing newline). {@code current}: the command it is running (the
     * client asking about itself), or null: Redis counts that command in argv-mem, and in qbuf too, as its query
     * buffer still holds it (in the multibulk form clients send) until the command has run.
     */
    static StringBuilder append(StringBuilder sb, Session s, long now, Args current) {
        long argvBytes = 0;
        long wireBytes = 0;
        if (current != null) {
            wireBytes = 3 + Integer.toString(current.count()).length();
            for (int i = 0; i < current.count(); i++) {
                argvBytes += current.length(i);
                wireBytes += 3 + Integer.toString(current.length(i)).length() + current.length(i) + 2;
            }
        }
        ClientConnection c = s.connection();
        int fd = c.fileDescriptor();
        long qbuf = c.queryBufferUnparsed() + wireBytes;
        long qfree = c.queryBufferFree();
        long rbs = s.out().ownCapacity(); // not the event loop's scratch, which the loop's clients share
        long obl = s.out().size();
        long omem = c.pendingOutputBytes();
        long shared = 0;
        if (s.attachedReplica()) { // a replica's output is its share of the replication buffer, as Redis counts it
            // (from replication, not the engine's feed: on an intermediate replica that feed is off, its stream forwarded)
            shared = Math.max(0, s.engine().memory().replicaHeld(s) - omem);
            omem += shared;
        }
        sb.append("id=").append(s.id());
        sb.append(" addr=").append(c.remoteAddress());
        sb.append(" laddr=").append(c.localAddress());
        sb.append(" fd=").append(fd >= 0 ? fd : 1000 + s.id());
        sb.append(" name=").append(s.name());
        sb.append(" age=").append(Math.max(0, (now - s.createdAt()) / 1000));
        sb.append(" idle=").append(Math.max(0, (now - s.lastInteraction()) / 1000));
        sb.append(" flags=").append(flags(s));
        sb.append(" db=").append(s.dbIndex());
        int sub = 0;
        int psub = 0;
        int ssub = 0;
        if (s.hasSubscriptions()) {
            sub = s.subscriptions().set(PubSub.Kind.CHANNEL).size();
            psub = s.subscriptions().set(PubSub.Kind.PATTERN).size();
            ssub = s.subscriptions().set(PubSub.Kind.SHARD).size();
        }
        Transaction t = s.transaction();
        sb.append(" sub=").append(sub).append(" psub=").append(psub).append(" ssub=").append(ssub);
        sb.append(" multi=").append(t == null ? -1 : t.size());
        sb.append(" qbuf=").append(qbuf);
        sb.append(" qbuf-free=").append(qfree);
        sb.append(" argv-mem=").append(argvBytes);
        sb.append(" multi-mem=").append(ClientMemory.multi(s));
        sb.append(" rbs=").append(rbs);
        sb.append(" rbp=").append(rbs);
        sb.append(" obl=").append(obl);
        sb.append(" oll=0");
        sb.append(" omem=").append(omem);
        sb.append(" tot-mem=").append(ClientMemory.of(s, wireBytes + argvBytes) + shared);
        sb.append(" events=").append(omem > 0 ? "rw" : "r");
        sb.append(" cmd=").append(s.lastCommand());
        sb.append(" user=").append(s.user().name());
        TrackingState tracking = s.tracking();
        sb.append(" redir=").append(tracking == null ? -1 : tracking.redirect());
        sb.append(" resp=").append(s.protocol());
        return sb;
    }

    /** Redis's flag letters, in its order, for the states Spinel has; "N" when none. */
    private static String flags(Session s) {
        StringBuilder f = new StringBuilder(4);
        if (s.engine().hooks().isReplicaClient(s)) {
            f.append('S');
        }
        if (s.engine().monitors().contains(s)) {
            f.append('O');
        }
        if (s.isReplicationApplier()) {
            f.append('M');
        }
        if (s.hasSubscriptions()) {
            f.append('P');
        }
        if (s.transaction() != null) {
            f.append('x');
        }
        if (s.suspended() && !s.connection().lent()) { // lent: running its script, not blocked (as in Redis)
            f.append('b');
        }
        TrackingState tracking = s.tracking();
        if (tracking != null) {
            f.append('t');
            if (tracking.redirect() > 0 && s.engine().clients().get(tracking.redirect()) == null) {
                f.append('R');
            }
            if (tracking.bcast()) {
                f.append('B');
            }
        }
        if (s.watchInvalidated()) {
            f.append('d');
        }
        if (s.closing()) {
            f.append('c');
        }
        if (s.noEvict()) {
            f.append('e');
        }
        return f.isEmpty() ? "N" : f.toString();
    }
}
