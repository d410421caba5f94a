package dev.spinel.cluster;

import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.SetConfigurationRequest;
import org.apache.ratis.protocol.exceptions.AlreadyExistsException;
import org.apache.ratis.retry.RetryPolicy;
import org.apache.ratis.server.RaftServer;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
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
     * then the configuration changed through {@code client}, a client of {@code g}.
     */
    void add(RaftGroup g, RaftPeer peer, RaftClient client) throws IOException, TopologyException {
        List<RaftPeer> peers = new ArrayList<>();
        for (RaftPeer p : g.getPeers()) {
            if (!p.getId().equals(peer.getId())) {
                peers.add(p);
            }
        }
        peers.add(peer);
        try (RaftClient c = RaftClient.newBuilder().setProperties(props).setRetryPolicy(retry)
                .setRaftGroup(RaftGroup.valueOf(g.getGroupId(), peer)).build()) {
            c.getGroupManagementApi(peer.getId()).add(RaftGroup.valueOf(g.getGroupId(), peers));
        } catch (AlreadyExistsException already) {
            // joined before (a repeated MEET): only the configuration may be missing
        }
        // ADD, not the whole list: another member may be bringing a node in at the same time (two groups being
        // merged), and a list read before its change would drop that node again. Ratis refuses a change while
        // another is in progress; the client retries it.
        RaftClientReply r = client.admin().setConfiguration(SetConfigurationRequest.Arguments.newBuilder()
                .setServersInNewConf(List.of(peer)).setMode(SetConfigurationRequest.Mode.ADD).build());
        if (!r.isSuccess()) {
            throw new TopologyException("ERR the new node could not join the Raft group: " + r.getException());
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
}
