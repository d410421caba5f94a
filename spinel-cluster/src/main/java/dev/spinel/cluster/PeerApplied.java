package dev.spinel.cluster;

import org.apache.ratis.client.RaftClient;
import org.apache.ratis.client.RaftClientConfigKeys;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftGroup;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.util.TimeDuration;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Whether another member of the group has applied a given change: a Raft stale read addressed to that member with
 * the change's log index as its minimum. The member answers it (the index it applied) only once its state machine
 * has applied that index, and refuses it while it does not yet know the entry is committed; so a refusal or a
 * timeout is asked again until the caller's deadline.
 *
 * <p>Thread-safety: the client is made and replaced under this object's monitor (rebuilt when the group's membership
 * changed); {@link #await} blocks its caller (a background thread) up to its timeout without holding the monitor,
 * and {@link #close} (from any thread) ends a wait under way at its next try.
 */
final class PeerApplied implements AutoCloseable {
    private static final Message APPLIED = Message.valueOf("applied");
    /** One try's wait: a stale read waits there for the apply, so a slow member is asked again, not given up on. */
    private static final TimeDuration TRY = TimeDuration.valueOf(1, TimeUnit.SECONDS);
    private static final long RETRY_PAUSE_MS = 10;
    private final RaftProperties props;
    private RaftClient client;
    private RaftGroup clientGroup;
    private volatile boolean closed;

    PeerApplied(RaftProperties serverProps) {
        this.props = new RaftProperties(serverProps);
        RaftClientConfigKeys.Rpc.setRequestTimeout(props, TRY);
    }

    /** Waits until {@code peerId} (a member of {@code group}) has applied the entry at {@code index}; false on timeout. */
    boolean await(RaftGroup group, String peerId, long index, long timeoutMs) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        RaftPeerId peer = RaftPeerId.valueOf(peerId);
        while (true) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left <= 0 || closed) {
                return false;
            }
            try {
                // The blocking API: the asynchronous one sends stale reads in order, and one refused closes its window.
                RaftClientReply r = client(group).io().sendStaleRead(APPLIED, index, peer);
                if (r.isSuccess()
                        && Long.parseLong(r.getMessage().getContent().toString(StandardCharsets.UTF_8)) >= index) {
                    return true;
                }
            } catch (IOException | RuntimeException e) {
                // not committed there yet (a StaleReadException), or the member is slow or unreachable: asked again
            }
            Thread.sleep(Math.min(RETRY_PAUSE_MS, Math.max(1, left)));
        }
    }

    private synchronized RaftClient client(RaftGroup group) {
        if (closed) {
            throw new IllegalStateException("closed");
        }
        if (client == null || !group.equals(clientGroup)) {
            closeClient();
            // no retries of its own: await asks again, until its own deadline
            client = RaftClient.newBuilder().setProperties(props).setRetryPolicy(RetryPolicies.noRetry())
                    .setRaftGroup(group).build();
            clientGroup = group;
        }
        return client;
    }

    @Override
    public void close() {
        closed = true;
        closeClient();
    }

    private synchronized void closeClient() {
        RaftClient c = client;
        client = null;
        clientGroup = null;
        if (c != null) {
            try {
                c.close();
            } catch (IOException e) {
                System.getLogger(PeerApplied.class.getName()).log(System.Logger.Level.DEBUG, "closing a Raft client: " + e);
            }
        }
    }
}
