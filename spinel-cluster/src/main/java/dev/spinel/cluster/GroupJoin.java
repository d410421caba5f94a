package dev.spinel.cluster;

import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.exceptions.AlreadyExistsException;
import org.apache.ratis.retry.RetryPolicy;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The Raft half of bringing a node in, once its record is committed: the group is added on the new node's Raft
 * server, then the configuration is changed to include it. Both steps are idempotent (a group already there, a
 * configuration already holding the peer), so a step that fails is tried again, with a growing pause, until
 * {@link #BUDGET_MS} has passed: on a loaded machine a Ratis client runs out of its retries (about 10 s) while the
 * new node is still starting or catching up, or an election is going on, and giving up then left the new node
 * with the group's log but dropped from it (a FORGET), so that `redis-cli --cluster create` waited for ever. As
 * Redis's handshake with a met node is repeated until it answers, the join is.
 *
 * <p>Stateless; called by {@link RaftTopology#join} under its monitor.
 */
final class GroupJoin {
    /** How long a join keeps trying before the caller rolls it back. */
    static final long BUDGET_MS = 60_000;
    private static final long FIRST_PAUSE_MS = 250;
    private static final long MAX_PAUSE_MS = 2000;

    /** The current group of the joining side (read again before each try: it may have changed meanwhile). */
    interface Groups {
        RaftGroup current() throws IOException;
    }

    /** The group's client (the caller's shared one; it follows the leader). */
    interface Clients {
        RaftClient client() throws IOException;
    }

    private GroupJoin() {
    }

    /** Adds {@code peer} to the group and its configuration; throws the last failure once the budget is spent. */
    static void bringIn(RaftPeer peer, Groups groups, Clients clients, RaftProperties props, RetryPolicy retry)
            throws IOException {
        long deadline = System.currentTimeMillis() + BUDGET_MS;
        long pause = FIRST_PAUSE_MS;
        for (int attempt = 1; ; attempt++) {
            try {
                tryOnce(peer, groups.current(), clients, props, retry);
                return;
            } catch (IOException | RuntimeException e) {
                if (System.currentTimeMillis() + pause > deadline) {
                    throw e instanceof IOException io ? io : new IOException(e);
                }
                System.getLogger(GroupJoin.class.getName()).log(System.Logger.Level.WARNING,
                        "bringing " + peer.getId() + " into the Raft group, try " + attempt + " failed (trying again in "
                                + pause + " ms): " + e);
            }
            try {
                Thread.sleep(pause);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while bringing " + peer.getId() + " in");
            }
            pause = Math.min(MAX_PAUSE_MS, pause * 2);
        }
    }

    private static void tryOnce(RaftPeer peer, RaftGroup g, Clients clients, RaftProperties props, RetryPolicy retry)
            throws IOException {
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
            // added by an earlier try or an earlier MEET: only the configuration may be missing
        }
        RaftClientReply r = clients.client().admin().setConfiguration(peers);
        if (!r.isSuccess()) {
            throw new IOException("the configuration change failed: " + r.getException());
        }
    }
}
