package dev.spinel.server.net;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.QueryBuffer;
import dev.spinel.protocol.RespParser;
import io.netty.util.concurrent.FastThreadLocal;

import java.util.ArrayDeque;

/**
 * The input and output scratch of one event loop, shared by its connections so that an idle connection
 * holds no buffer (10,000 idle clients each holding a query buffer, a parser and a reply array cost
 * ~2 KB apiece). A connection uses the loop's parse context ({@link #query}, {@link #args},
 * {@link #parser}) for the duration of one read, and takes it over ({@link #adopt}) only when the read
 * leaves part of a request or requests it cannot run now (suspended, socket unwritable); it borrows
 * {@link #reply} for its replies from its read until its read batch is flushed.
 *
 * <p>Thread-safety: one instance per thread ({@link #current}), used only by that thread; a connection
 * gives back what it borrowed before its handler returns to the loop, which {@link #claimReply} checks.
 */
final class LoopBuffers {
    /** Larger than any single read (Netty's adaptive reads stop at 64 KiB) plus a partial request. */
    private static final int QUERY_SCRATCH = 80 * 1024;
    /** Holds a read batch's replies up to the size at which the handler hands them to the socket. */
    private static final int REPLY_SCRATCH = 80 * 1024;

    private static final FastThreadLocal<LoopBuffers> BUFFERS = new FastThreadLocal<>() {
        @Override
        protected LoopBuffers initialValue() {
            return new LoopBuffers();
        }
    };

    private final byte[] queryScratch = new byte[QUERY_SCRATCH];
    QueryBuffer query;
    Args args;
    RespParser parser;
    final byte[] reply = new byte[REPLY_SCRATCH];
    /** The connection whose replies are in {@link #reply} now, or null. */
    private ReplyFlusher replyUser;

    /**
     * Parse contexts given back by connections whose held input ran ({@link #recycle}), reused by {@link #adopt}:
     * a pipelining client whose reads often end inside a request would otherwise cost a context per read. Three
     * parallel stacks, so that keeping one allocates nothing.
     */
    private final ArrayDeque<QueryBuffer> spareQueries = new ArrayDeque<>();
    private final ArrayDeque<Args> spareArgs = new ArrayDeque<>();
    private final ArrayDeque<RespParser> spareParsers = new ArrayDeque<>();
    private static final int MAX_SPARE = 64;
    /** A spare context's array larger than this is dropped rather than kept idle. */
    private static final int MAX_SPARE_ARRAY = 64 * 1024;

    private LoopBuffers() {
        fresh();
    }

    static LoopBuffers current() {
        return BUFFERS.get();
    }

    private void fresh() {
        query = new QueryBuffer(queryScratch);
        args = new Args();
        parser = new RespParser(query, args);
    }

    /**
     * Hands the parse context, with its state (a request in progress), to the connection that was using it,
     * its unconsumed bytes moved off the shared array; the loop goes on with a new context on the same array.
     */
    void adopt() {
        QueryBuffer next = spareQueries.pollLast();
        if (query.array() == queryScratch) {
            byte[] target = next == null ? null : next.array();
            if (target == null || target.length < query.pending()) {
                target = query.privateCopyTarget();
            }
            query.moveTo(target);
        }
        if (next == null) {
            fresh();
        } else {
            next.restart(queryScratch);
            query = next;
            args = spareArgs.pollLast();
            parser = spareParsers.pollLast();
        }
    }

    /** A connection's own context whose input all ran: kept for the next {@link #adopt} on this loop. */
    void recycle(QueryBuffer q, Args a, RespParser p) {
        if (spareQueries.size() < MAX_SPARE && q.array().length <= MAX_SPARE_ARRAY && q.array() != queryScratch) {
            q.restart(q.array());
            spareQueries.addLast(q);
            spareArgs.addLast(a);
            spareParsers.addLast(p);
        }
    }

    /** Called when a connection's read consumed everything: the context is clean for the next connection. */
    void release() {
        query.compactIfEmpty();
        if (query.array() != queryScratch) {
            fresh(); // a request larger than the scratch grew the array: back to the scratch
        }
    }

    /**
     * Makes {@code user} the one connection writing into {@link #reply}: a previous user that did not give it
     * back (its read batch never completed) takes its unsent replies into an array of its own first.
     */
    void claimReply(ReplyFlusher user) {
        ReplyFlusher previous = replyUser;
        if (previous != null && previous != user) {
            previous.giveBackReply();
        }
        replyUser = user;
    }

    void replyReturned(ReplyFlusher user) {
        if (replyUser == user) {
            replyUser = null;
        }
    }

    /** For tests and CLIENT LIST: whether {@code q} is this loop's shared buffer. */
    boolean shared(QueryBuffer q) {
        return q == query;
    }

    int queryCapacity() {
        return queryScratch.length;
    }
}
