package dev.spinel.cluster;

import org.apache.ratis.proto.RaftProtos.RaftPeerRole;
import org.apache.ratis.proto.RaftProtos.RoleInfoProto;
import org.apache.ratis.proto.RaftProtos.ServerRpcProto;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.server.RaftServer;

import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

/**
 * What a Raft member's role info says of its contact with the others: the fencing's "last in contact with a
 * majority" and the leader's per-follower silence, read from Ratis's {@link RoleInfoProto}.
 *
 * <p>Thread-safety: stateless.
 */
final class RaftContact {
    private RaftContact() {
    }

    /** As below, for group {@code g} of {@code server} now ({@link Long#MAX_VALUE} when it has no such group). */
    static long majorityContactAgeMs(RaftServer server, RaftGroupId g) {
        if (g == null) {
            return Long.MAX_VALUE;
        }
        try {
            RaftServer.Division d = server.getDivision(g);
            // the configuration's voters: getGroup() would build a RaftGroup (and check its peers unique) each tick
            int voters = d.getRaftConf().getAllPeers(RaftPeerRole.FOLLOWER).size();
            return majorityContactAgeMs(d.getInfo().getRoleInfoProto(), voters);
        } catch (IOException | RuntimeException e) {
            return Long.MAX_VALUE;
        }
    }

    /** As below, for group {@code g} of {@code server} now (empty when it has no such group). */
    static Map<String, Long> peerSilenceMs(RaftServer server, RaftGroupId g) {
        if (g == null) {
            return Map.of();
        }
        try {
            RaftServer.Division d = server.getDivision(g);
            // asked every cron tick on every node: a follower answers without building its role info
            return d.getInfo().isLeader() ? peerSilenceMs(d.getInfo().getRoleInfoProto()) : Map.of();
        } catch (IOException | RuntimeException e) {
            return Map.of();
        }
    }

    /** See {@link ClusterTopology#majorityContactAgeMs()}; {@code members} counts the group's voters. */
    static long majorityContactAgeMs(RoleInfoProto role, int members) {
        if (role.hasLeaderInfo()) {
            // The leader itself is one of the majority: it needs members / 2 followers' answers.
            int needed = members / 2;
            if (needed == 0) {
                return 0;
            }
            long[] ages = role.getLeaderInfo().getFollowerInfoList().stream()
                    .mapToLong(ServerRpcProto::getLastRpcElapsedTimeMs).sorted().toArray();
            return ages.length < needed ? Long.MAX_VALUE : ages[needed - 1];
        }
        if (role.hasFollowerInfo() && role.getFollowerInfo().hasLeaderInfo()
                && !role.getFollowerInfo().getLeaderInfo().getId().getId().isEmpty()) {
            return role.getFollowerInfo().getLeaderInfo().getLastRpcElapsedTimeMs();
        }
        return Long.MAX_VALUE;
    }

    /** See {@link ClusterTopology#peerSilenceMs()}. */
    static Map<String, Long> peerSilenceMs(RoleInfoProto role) {
        if (!role.hasLeaderInfo()) {
            return Map.of();
        }
        Map<String, Long> out = new HashMap<>();
        for (ServerRpcProto f : role.getLeaderInfo().getFollowerInfoList()) {
            out.put(f.getId().getId().toStringUtf8(), f.getLastRpcElapsedTimeMs());
        }
        return out;
    }
}
