package dev.spinel.grpc;

import dev.spinel.server.engine.EmbeddedClient;

import java.util.Arrays;
import java.util.concurrent.Executor;

/**
 * The replies of one event loop that wait for the append-only log, gathered over a loop turn: the turn
 * costs one task, one log write and at most one log callback however many calls it answered, as the
 * RESP connection waits once per read batch. Before, each call scheduled its own task and, when the log
 * was busy, registered its own log callback and woke the loop on its own. A reply still leaves only
 * once the log acknowledges its write: the batch goes out after the log acknowledges the greatest
 * position in it, which acknowledges every smaller one.
 *
 * <p>Thread-safety: confined to its event loop; {@link #add} is called on it, and {@link #run} runs on it.
 */
final class LoggedReplies implements Runnable {
    private final EmbeddedClient client;
    private final Executor loop;
    private Runnable[] replies = new Runnable[16];
    private Runnable[] spare = new Runnable[16];
    private int count;
    private long position;
    private boolean scheduled;

    LoggedReplies(EmbeddedClient client, Executor loop) {
        this.client = client;
        this.loop = loop;
    }

    /** Sends {@code reply} once {@code position} is acknowledged, after the rest of this loop turn. */
    void add(long position, Runnable reply) {
        if (count == replies.length) {
            replies = Arrays.copyOf(replies, count * 2);
        }
        replies[count++] = reply;
        this.position = Math.max(this.position, position);
        if (!scheduled) {
            scheduled = true;
            loop.execute(this);
        }
    }

    /** The end of the turn: writes the log once and sends, or hands the whole batch to one log callback. */
    @Override
    public void run() {
        scheduled = false;
        Runnable[] batch = replies;
        int n = count;
        long upTo = position;
        // Replies added while this batch runs (a reply may let a stream read its next message) start a new one.
        replies = spare.length >= 16 ? spare : new Runnable[16];
        count = 0;
        position = 0;
        if (client.writeNow(upTo)) {
            for (int i = 0; i < n; i++) {
                Runnable r = batch[i];
                batch[i] = null;
                r.run();
            }
            spare = batch;
            return;
        }
        Runnable[] waiting = Arrays.copyOf(batch, n);
        Arrays.fill(batch, 0, n, null);
        spare = batch;
        client.whenAcknowledged(upTo, () -> loop.execute(() -> {
            for (Runnable r : waiting) {
                r.run();
            }
        }));
    }
}
