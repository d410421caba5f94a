package dev.spinel.server.engine;

import dev.spinel.protocol.Args;
import dev.spinel.server.engine.ports.ClientConnection;
import dev.spinel.server.engine.pubsub.PubSub;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Orders a client's PUBLISH after what its subscribers on other event loops had already sent. Redis runs
 * every connection on one thread, so a subscriber's UNSUBSCRIBE that reached the server before another
 * client's PUBLISH is executed first, and PUBLISH counts (and sends to) only who is still subscribed; Redis's
 * own tests rely on it. Spinel's event loops run side by side, so the publisher's loop could get there
 * first. Before a PUBLISH that has subscribers on other loops runs, the publisher is suspended and a task is
 * queued on each of those loops; a loop runs it after polling its sockets and reading the input waiting
 * there, so once every task has run, the PUBLISH runs again (once) and sees the subscriptions as they are
 * after that input.
 *
 * <p>Only for a PUBLISH that is the last request of its read batch (a pipelined one is not waited for: its
 * client did not wait for anything either) and that runs at top level (not queued in MULTI, not in a script).
 * Its cost is one hop to each other loop and back, paid only when a subscriber lives on another loop.
 *
 * <p>Thread-safety: {@link #holdBack} runs on the publisher's loop; the tasks count down an atomic counter,
 * and the last one resumes the publisher on its own loop.
 */
final class PublishBarrier {
    private PublishBarrier() {
    }

    /**
     * Suspends {@code publisher} until its subscribers' other loops have caught up, and returns true (the
     * request runs again then, through {@link Session#passBarrier}); false when there is nothing to wait for.
     */
    static boolean holdBack(Session publisher, Args args, PubSub<Session> pubSub) {
        if (publisher.passBarrier()) {
            return false;
        }
        ClientConnection own = publisher.connection();
        Object here = own.loop();
        if (here == null || own.hasMoreInput() || publisher.replyMode() != Session.ReplyMode.ON) {
            return false;
        }
        Set<Object> loops = new HashSet<>();
        Set<ClientConnection> via = new HashSet<>();
        pubSub.forEachSubscriber(args.copy(1), s -> {
            Object loop = s.connection().loop();
            if (loop != null && loop != here && loops.add(loop)) {
                via.add(s.connection());
            }
        });
        if (via.isEmpty()) {
            return false;
        }
        own.suspend(args);
        AtomicInteger left = new AtomicInteger(via.size());
        Runnable arrived = () -> {
            if (left.decrementAndGet() == 0) {
                own.execute(() -> {
                    publisher.passBarrier(true);
                    publisher.resume();
                });
            }
        };
        for (ClientConnection c : via) {
            // Queued, then scheduled: a loop runs scheduled tasks only after polling its sockets again, so
            // input that arrived while it was busy with an earlier batch is read first too.
            c.execute(() -> c.schedule(arrived, 0));
        }
        return true;
    }
}
