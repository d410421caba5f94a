package dev.spinel.server.engine;

import dev.spinel.protocol.Args;
import dev.spinel.server.engine.ports.ClientConnection;
import dev.spinel.server.engine.pubsub.PubSub;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Orders a client's request after what clients on other event loops had already sent. Redis runs every
 * connection on one thread and reads ready sockets in the order their data arrived, so a request that reached
 * the server before another client's is executed first; Redis's own tests rely on it for:
 * <ul>
 * <li>{@link #SUBSCRIBERS} (PUBLISH): a subscriber's UNSUBSCRIBE sent before another client's PUBLISH runs
 * first, and PUBLISH counts (and sends to) only who is still subscribed;
 * <li>{@link #EVERY_LOOP} (INFO, CLIENT LIST): what they report (connected and blocked clients, a client closed
 * for its output limit or evicted) includes the effect of requests other clients had sent before them, e.g.
 * two SHUTDOWNs sent just before INFO are both counted blocked (integration/shutdown).
 * </ul>
 * Spinel's event loops run side by side, so the asker's loop could get there first. Before such a request runs,
 * its client is suspended and a task is queued on each loop concerned; a loop runs it after polling its sockets
 * and reading the input waiting there, so once every task has run, the request runs again (once) and sees what
 * that input did.
 *
 * <p>Only for a request that is the last of its read batch (a pipelined one is not waited for: its client did
 * not wait for anything either) and that runs at top level (not queued in MULTI, not in a script). Its cost is
 * one hop to each other loop and back: for PUBLISH paid only when a subscriber lives on another loop; INFO and
 * CLIENT LIST (not on a hot path) find the other loops through the client list. A loop busy with one long
 * command holds INFO and CLIENT LIST back at most {@link #EVERY_LOOP_WAIT_MS}: they then answer with what they see.
 *
 * <p>Thread-safety: {@link #holdBack} runs on the asker's loop; the tasks count down an atomic counter, and the
 * last one (or the time bound) resumes the asker on its own loop, once.
 */
final class CatchUpBarrier {
    /** Not held back. */
    static final byte NONE = 0;
    /** Held back until the loops of the channel's subscribers caught up (PUBLISH). */
    static final byte SUBSCRIBERS = 1;
    /** Held back until every loop serving a client caught up (INFO, CLIENT LIST). */
    static final byte EVERY_LOOP = 2;
    static final long EVERY_LOOP_WAIT_MS = 1000;

    private CatchUpBarrier() {
    }

    /** The barrier {@code name} (a command's full name, {@code client|list} for a subcommand) waits for. */
    static byte of(String name) {
        return switch (name) {
            case "publish" -> SUBSCRIBERS;
            case "info", "client|list" -> EVERY_LOOP;
            default -> NONE;
        };
    }

    /**
     * Suspends {@code asker} until the loops concerned have caught up, and returns true (the request runs again
     * then, through {@link Session#passBarrier}); false when there is nothing to wait for.
     */
    static boolean holdBack(Session asker, Command cmd, Args args, PubSub<Session> pubSub) {
        if (asker.passBarrier()) {
            return false;
        }
        ClientConnection own = asker.connection();
        Object here = own.loop();
        if (here == null || own.hasMoreInput() || asker.replyMode() != Session.ReplyMode.ON) {
            return false;
        }
        Set<Object> loops = new HashSet<>();
        Set<ClientConnection> via = new HashSet<>();
        if (cmd.catchUp == SUBSCRIBERS) {
            pubSub.forEachSubscriber(args.copy(1), s -> oneConnectionPerLoop(s, here, loops, via));
        } else {
            for (Session s : asker.engine().clients().all()) {
                oneConnectionPerLoop(s, here, loops, via);
            }
        }
        if (via.isEmpty()) {
            return false;
        }
        own.suspend(args);
        AtomicBoolean released = new AtomicBoolean();
        Runnable release = () -> {
            if (released.compareAndSet(false, true)) {
                own.execute(() -> {
                    asker.passBarrier(true);
                    asker.resume();
                });
            }
        };
        AtomicInteger left = new AtomicInteger(via.size());
        Future<?>[] timer = new Future<?>[1]; // read racily: a timer not seen cancelled fires later and finds it released
        Runnable arrived = () -> {
            if (left.decrementAndGet() == 0) {
                release.run();
                Future<?> t = timer[0];
                if (t != null) {
                    t.cancel(false); // not kept queued for its second by every INFO of a client that polls
                }
            }
        };
        for (ClientConnection c : via) {
            // Queued, then scheduled: a loop runs scheduled tasks only after polling its sockets again, so
            // input that arrived while it was busy with an earlier batch is read first too.
            c.execute(() -> c.schedule(arrived, 0));
        }
        if (cmd.catchUp == EVERY_LOOP) {
            timer[0] = own.schedule(release, EVERY_LOOP_WAIT_MS);
        }
        return true;
    }

    private static void oneConnectionPerLoop(Session s, Object here, Set<Object> loops, Set<ClientConnection> via) {
        Object loop = s.connection().loop();
        if (loop != null && loop != here && loops.add(loop)) {
            via.add(s.connection());
        }
    }
}
