package dev.spinel.server.engine;

import dev.spinel.protocol.Args;
import dev.spinel.store.Database;

import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One blocked client: where it waits, what it runs when served, and its state. The state moves
 * once from WAITING to SERVED (claimed by a serving thread) or GONE (timeout, disconnect, unblock),
 * so exactly one of them completes the client.
 */
public final class Waiter {
    static final int WAITING = 0;
    static final int SERVED = 1;
    static final int GONE = 2;

    final Session session;
    final Database db;
    final byte[][] keys;
    final BlockedOperation op;
    final boolean resp3;
    /** The blocking command as the client sent it, for the slow log when it is served or times out. */
    final Args command;
    /**
     * The command blocked under CLIENT REPLY OFF or SKIP: its eventual reply (served, timed out, unblocked) is
     * dropped, as Redis's addReply drops it for such a client. Taken now: the session's mode has moved on
     * (SKIP back to ON) by the time the reply is written.
     */
    final boolean replyDropped;
    /** The reply produced by a serving thread, handed to the client's loop. */
    byte[] reply;
    final AtomicInteger state = new AtomicInteger(WAITING);
    volatile Future<?> timer;

    public Waiter(Session session, Database db, byte[][] keys, BlockedOperation op) {
        this.session = session;
        this.db = db;
        this.keys = keys;
        this.op = op;
        this.resp3 = session.protocol() == 3;
        this.command = session.blockedCommand();
        this.replyDropped = session.repliesDropped();
    }
}
