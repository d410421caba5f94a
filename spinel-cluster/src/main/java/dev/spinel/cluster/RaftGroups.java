package dev.spinel.cluster;

import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.protocol.SetConfigurationRequest;
import org.apache.ratis.protocol.exceptions.AlreadyExistsException;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.util.TimeDuration;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * How a node enters a Raft group and leaves the ones it was moved out of. A server has its own group from the start
 * (or the groups it recovers); every other one comes when a node of that group brings this one in. Of the groups
 * whose topology shows this node, it belongs to the one that comes first in {@link GroupOrder}: two merges at the
 * same time may both bring it in, and the others are groups it was moved out of.
 *
 * <p>Thread-safety: stateless apart from its settings; safe for any thread.
 */
final class RaftGroups {
    private final RaftProperties props;
    private final RetryPolicy retry;
    private final RaftPeer me;
    /** A configuration change is retried for about a minute (see {@link #add}). */
    private static final RetryPolicy RECONFIGURE = RetryPolicies.retryUpToMaximumCountWithFixedSleep(
            300, TimeDuration.valueOf(200, TimeUnit.MILLISECONDS));

    RaftGroups(RaftProperties props, RetryPolicy retry, RaftPeer me) {
        this.props = props;
        this.retry = retry;
        this.me = me;
    }

    /**
     * Removes from {@code server} (with their storage) the groups {@code left} names: groups this node was moved out
     * of, so that a restart recovers only the group it belongs to. {@code dropped} is told of each.
     */
    void drop(RaftServer server, Predicate<RaftGroupId> left, Consumer<RaftGroupId> dropped) {
        for (RaftGroupId g : server.getGroupIds()) {
            if (!left.test(g)) {
                continue;
            }
            try (RaftClient c = RaftClient.newBuilder().setProperties(props).setRetryPolicy(retry).setRaftGroup(RaftGroup.valueOf(g, me)).build()) {
                c.getGroupManagementApi(me.getId()).remove(g, true, false);
                dropped.accept(g);
            } catch (IOException | RuntimeException e) {
                System.getLogger(RaftGroups.class.getName()).log(System.Logger.Level.WARNING,
                        "could not remove this node's former Raft group " + g + ": " + e);
            }
        }
    }

    /**
     * Brings {@code peer} into group {@code g}: the group made on the peer's server (already there: a repeated MEET),
     * then the configuration changed (the group's leader is {@code leader}, if known).
     */
    void add(RaftGroup g, RaftPeer peer, RaftPeerId leader) throws IOException, TopologyException {
        List<RaftPeer> peers = new ArrayList<>();
        for (RaftPeer p : g.getPeers()) {
            if (!p.getId().equals(peer.getId())) {
                peers.add(p);
            }
        }
        // Made with the group's members without the new one: a division whose configuration does not list itself
        // starts in Ratis's initializing state and waits for the leader. Listed, it would start an election timer
        // and, if the configuration change came later than its timeout (a loaded machine, or another change in
        // progress), ask the members for a vote; a member answers a candidate missing from the configuration with
        // a shutdown, which closes the division for good, and the change then waits for it in vain.
        try (RaftClient c = RaftClient.newBuilder().setProperties(props).setRetryPolicy(retry)
                .setRaftGroup(RaftGroup.valueOf(g.getGroupId(), peer)).build()) {
            c.getGroupManagementApi(peer.getId()).add(RaftGroup.valueOf(g.getGroupId(), peers));
        } catch (AlreadyExistsException already) {
            // joined before (a repeated MEET): only the configuration may be missing
        }
        // ADD, not the whole list: another member may be bringing a node in at the same time (two groups being
        // merged), and a list read before its change would drop that node again. Ratis refuses a change while
        // another is in progress, and each waits for its new member to catch up: when ten nodes merge, members
        // bring nodes in at once, so this client retries for longer than a commit's.
        RaftClient.Builder b = RaftClient.newBuilder().setProperties(props).setRetryPolicy(RECONFIGURE).setRaftGroup(g);
        if (leader != null) {
            b.setLeaderId(leader);
        }
        try (RaftClient c = b.build()) {
            RaftClientReply r = c.admin().setConfiguration(SetConfigurationRequest.Arguments.newBuilder()
                    .setServersInNewConf(List.of(peer)).setMode(SetConfigurationRequest.Mode.ADD).build());
            if (!r.isSuccess()) {
                throw new TopologyException("ERR the new node could not join the Raft group: " + r.getException());
            }
        }
    }

    /** Takes node {@code nodeId} out of the configuration of group {@code g} (through {@code client}, one of {@code g}). */
    static void remove(RaftGroup g, String nodeId, RaftClient client) throws IOException, TopologyException {
        List<RaftPeer> peers = new ArrayList<>();
        for (RaftPeer p : g.getPeers()) {
            if (!p.getId().toString().equals(nodeId)) {
                peers.add(p);
            }
        }
        if (peers.size() < g.getPeers().size()) {
            RaftClientReply r = client.admin().setConfiguration(peers);
            if (!r.isSuccess()) {
                throw new TopologyException("ERR the node was forgotten but is still in the Raft group: " + r.getException());
            }
        }
    }

    /**
     * Whether {@code me} votes in group {@code g} of {@code server}: listed in its current configuration (a node being
     * brought in is not, while the leader's configuration change waits for it to catch up, and stays out if it fails).
     */
    static boolean voting(RaftServer server, RaftGroupId g, RaftPeerId me) {
        if (g == null) {
            return false;
        }
        try {
            for (RaftPeer p : server.getDivision(g).getRaftConf().getCurrentPeers()) {
                if (p.getId().equals(me)) {
                    return true;
                }
            }
            return false;
        } catch (IOException e) {
            return false; // the group is gone (a CLUSTER RESET)
        }
    }

    /** Whether node {@code nodeId} is in the configuration of group {@code g}. */
    static boolean has(RaftGroup g, String nodeId) {
        for (RaftPeer p : g.getPeers()) {
            if (p.getId().toString().equals(nodeId)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether {@code server} has a group besides {@code own} (recovered from disk): a node moved out of its own first
     * group keeps it 60 s; recovered then, that group would show the node alone, a primary, until the cluster's group
     * applied (a replica by nodes.conf then dropped its role for that moment: seen in CI).
     */
    static boolean hasOtherThan(RaftServer server, RaftGroupId own) {
        try {
            for (RaftGroupId g : server.getGroupIds()) {
                if (!g.equals(own)) {
                    return true;
                }
            }
        } catch (RuntimeException e) {
            return false; // not started yet: no other group known
        }
        return false;
    }
}
