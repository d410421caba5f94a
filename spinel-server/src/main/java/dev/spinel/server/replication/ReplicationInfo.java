package dev.spinel.server.replication;

import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.engine.Session;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What {@link Replication} reports of its state: ROLE, INFO replication, and the replication AUX fields an
 * RDB saved now carries.
 *
 * <p>Thread-safety: reads the state's volatile fields and concurrent collections from any thread; a report
 * is not a snapshot (a replica may attach meanwhile), as Redis's, which runs between commands, is.
 */
final class ReplicationInfo {
    private ReplicationInfo() {
    }

    static void role(Replication r, Session s) {
        MasterLink ml = r.masterLink();
        if (ml != null) {
            s.out().array(5).bulk("slave").bulk(ml.host()).integer(ml.port()).bulk(ml.stateName()).integer(ml.processedOffset());
            return;
        }
        var links = r.replicas().stream().filter(ReplicaLink::online).toList();
        ReplyBuffer out = s.out();
        out.array(3).bulk("master").integer(r.offset()).array(links.size());
        for (ReplicaLink l : links) {
            out.array(3).bulk(l.ip()).bulk(Integer.toString(l.listeningPort)).bulk(Long.toString(l.ackOffset));
        }
    }

    /** The fields of INFO replication, in Redis 7.0's order. */
    static void append(Replication r, StringBuilder sb) {
        MasterLink ml = r.masterLink();
        long now = System.currentTimeMillis();
        if (ml != null) {
            field(sb, "role", "slave");
            ml.appendInfo(sb, now);
        } else {
            field(sb, "role", "master");
        }
        field(sb, "connected_slaves", r.replicas().size());
        if (r.config().minReplicasToWrite.value() > 0 && r.config().minReplicasMaxLag.value() > 0) {
            field(sb, "min_slaves_good_slaves", r.refusals().goodReplicas());
        }
        int i = 0;
        for (ReplicaLink l : r.replicas()) {
            String state = l.state();
            sb.append("slave").append(i++).append(":ip=").append(l.ip()).append(",port=").append(l.listeningPort)
                    .append(",state=").append(state).append(",offset=").append(l.ackOffset)
                    .append(",lag=").append((now - l.ackTime) / 1000).append("\r\n");
        }
        field(sb, "master_failover_state", r.failoverState().stateName());
        field(sb, "master_replid", r.replid());
        field(sb, "master_replid2", r.replid2());
        field(sb, "master_repl_offset", r.offset());
        field(sb, "second_repl_offset", r.secondOffset());
        ReplicationStream st = r.stream();
        field(sb, "repl_backlog_active", st != null ? 1 : 0);
        field(sb, "repl_backlog_size", st != null ? st.capacity() : r.config().replBacklogSize.value());
        field(sb, "repl_backlog_first_byte_offset", st != null ? st.firstByteOffset() : 0);
        field(sb, "repl_backlog_histlen", st != null ? st.histlen() : 0);
    }

    /** The replication AUX fields of an RDB saved now, or null (see {@link Replication#saveInfo}). */
    static Map<String, Object> saveInfo(Replication r) {
        MasterLink ml = r.masterLink();
        Map<String, Object> aux = new LinkedHashMap<>();
        if (ml == null) {
            ReplicationStream st = r.stream();
            if (st == null) {
                return null;
            }
            aux.put("repl-stream-db", (long) Math.max(0, st.selectedDb()));
            aux.put("repl-id", r.replid());
            aux.put("repl-offset", st.offset());
            return aux;
        }
        if (ml.masterReplid() == null || ml.processedOffset() < 0) {
            return null;
        }
        aux.put("repl-stream-db", (long) ml.streamDb());
        aux.put("repl-id", ml.masterReplid());
        aux.put("repl-offset", ml.processedOffset());
        return aux;
    }

    private static void field(StringBuilder sb, String name, Object v) {
        sb.append(name).append(':').append(v).append("\r\n");
    }
}
