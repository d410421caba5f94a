package dev.spinel.cluster;

import org.apache.ratis.proto.RaftProtos.LogEntryProto;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * The topology of one Raft group as a state machine: each committed log entry is a
 * {@link TopologyChange}'s text, applied in log order; the reply is "OK" or the change's Redis error.
 * A refused change leaves the topology as it was (it is still in the log, so every node refuses it too).
 * No snapshots: topology changes are few, and a restarted or joining node replays the whole log.
 *
 * A query (read-only request) answers the index applied, so a node can catch up with the leader.
 *
 * <p>Thread-safety: Ratis applies entries one at a time; {@link #topology} is a volatile read;
 * {@link #awaitApplied} waits on a private monitor, which each applied entry notifies.
 */
final class TopologyStateMachine extends BaseStateMachine {
    private volatile Topology topology = Topology.empty();
    private final BiConsumer<TopologyStateMachine, Topology> applied;
    private final Object appliedSignal = new Object();
    /** Written by Ratis's apply thread only. */
    private volatile long changesApplied;
    /** The log index of the entry being applied (or last applied); written by Ratis's apply thread only. */
    private volatile long applying;

    TopologyStateMachine(BiConsumer<TopologyStateMachine, Topology> applied) {
        this.applied = applied;
    }

    Topology topology() {
        return topology;
    }

    long changesApplied() {
        return changesApplied;
    }

    /** During a listener's call, the log index of the change it is told of. */
    long applyingIndex() {
        return applying;
    }

    long appliedIndex() {
        return getLastAppliedTermIndex().getIndex();
    }

    /**
     * Waits until the entry at {@code index} is applied here (its listeners called), at most {@code timeoutMs}:
     * woken by the apply itself, so a commit's caller answers as soon as its change is in effect.
     *
     * @return false on timeout
     */
    boolean awaitApplied(long index, long timeoutMs) throws InterruptedException {
        if (appliedIndex() >= index) {
            return true;
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        synchronized (appliedSignal) {
            while (appliedIndex() < index) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(appliedSignal, left);
            }
        }
        return true;
    }

    /** A read-only query (answered by the leader): the index of the last entry it applied. */
    @Override
    public CompletableFuture<Message> query(Message request) {
        return CompletableFuture.completedFuture(Message.valueOf(Long.toString(appliedIndex())));
    }

    @Override
    public CompletableFuture<Message> applyTransaction(TransactionContext trx) {
        LogEntryProto entry = trx.getLogEntry();
        applying = entry.getIndex();
        String text = entry.getStateMachineLogEntry().getLogData().toString(StandardCharsets.UTF_8);
        String reply = "OK";
        Topology next = topology;
        try {
            Topology.Builder b = topology.toBuilder();
            TopologyChange.decode(text).apply(b);
            next = b.build();
        } catch (TopologyException e) {
            reply = e.getMessage();
        } catch (RuntimeException e) {
            reply = "ERR bad topology change: " + e.getMessage();
        }
        topology = next;
        changesApplied++; // the one writer
        // Listeners first: a commit on this node returns once the index is applied here, and its caller (SETSLOT's
        // reply, then the client's next command) must find the node's routing already changed.
        if (reply.equals("OK")) {
            applied.accept(this, next);
        }
        updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
        synchronized (appliedSignal) {
            appliedSignal.notifyAll();
        }
        return CompletableFuture.completedFuture(Message.valueOf(reply));
    }
}
