package dev.spinel.server.net;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.ProtocolException;
import dev.spinel.protocol.QueryBuffer;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.protocol.RespParser;
import dev.spinel.server.config.OutputBufferLimitsParam.Limit;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.engine.Session;
import dev.spinel.server.engine.clock.CommandChain;
import dev.spinel.server.log.Log;
import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The input side of one RESP connection: each read is appended to the query buffer and every complete request
 * in it executed inline on the event loop ({@link #processInput}), its replies left to the {@link ReplyFlusher}.
 * Between reads the connection holds no input buffer unless it has input it could not run yet (part of a
 * request, or requests waiting on suspension or a full socket), taken over from the loop's {@link LoopBuffers}.
 *
 * <p>A suspended connection (CLIENT PAUSE, blocking commands) keeps reading into its query buffer but
 * executes nothing until {@link #resumeNow} runs the postponed request (a private copy), then the buffered
 * input, then one flush.
 *
 * <p>The middle layer of a connection's one handler object (see {@link ReplyFlusher}): it extends the output
 * half and is extended by {@link RespConnectionHandler}.
 *
 * <p>Not thread-safe: one instance per connection, used on the channel's event loop only.
 */
abstract class ReadBatch extends ReplyFlusher {
    /** Reply bytes after which they are handed to the socket while a read batch is still being executed. */
    private static final int OUTPUT_CHUNK = 64 * 1024;
    /** Largest hard limit up to which a batch's replies are held back (see {@link #processInput}). */
    private static final long HOLD_BELOW_LIMIT = 8L * 1024 * 1024;
    // The input being parsed: the loop's shared context during a read (LoopBuffers), this connection's own while
    // it holds input it could not run yet (part of a request, or requests waiting on suspension or a full
    // socket); null between reads otherwise, so an idle connection holds no buffer.
    private QueryBuffer query;
    private Args args;
    private RespParser parser;
    /** {@link #query}, {@link #args} and {@link #parser} are this connection's own, not the loop's. */
    private boolean ownInput;
    /** The receive-buffer size this connection would read into on its own ({@link ClientFigures#queryBufferFree}). */
    private int receiveSize = OwnReceiveSize.INITIAL;
    /** The loop thread's command timing (null on a thread without one): one clock read per command of a batch. */
    private CommandChain chain;
    // Suspension (CLIENT PAUSE, blocking commands): input is buffered but not executed until resume.
    boolean suspended;
    Args retry;
    /** Input processing stopped because the socket does not take more output; see {@link #processInput}. */
    private boolean paused;

    ReadBatch(Engine engine) {
        super(engine);
    }

    /** For the log line of a client closed at the query buffer limit ({@code ClientConnection}'s). */
    public abstract String remoteAddress();

    /** On channel activation, on the channel's loop. */
    void bindInput() {
        chain = CommandChain.current();
    }

    /** Appends one read to the query buffer and executes the complete requests in it; the flush follows at read complete. */
    void read(ByteBuf in) {
        try {
            try {
                if (query == null) {
                    LoopBuffers loop = LoopBuffers.current();
                    query = loop.query;
                    args = loop.args;
                    parser = loop.parser;
                }
                int n = in.readableBytes();
                receiveSize = OwnReceiveSize.next(receiveSize, n, in.capacity() - in.readerIndex()); // the loop's buffer offers only its tail (LoopReceiveSizes)
                engine.stats().netInputBytes.add(n);
                engine.stats().readsProcessed.add(1);
                query.ensureWritable(n);
                in.readBytes(query.array(), query.writePos(), n);
                query.advanceWrite(n);
            } finally {
                in.release();
            }
            // Checked before parsing, as Redis does after each read: a client whose unparsed input passes
            // the limit is closed without a reply, even if the input would complete a request.
            if (parser.unparsedBytes() > engine.config().clientQueryBufferLimit.value()) {
                Log.warning("Closing client that reached max query buffer length: addr=" + remoteAddress()
                        + " qbuf=" + parser.unparsedBytes());
                closeAfterReply = true;
                ctx.close();
                return;
            }
            Consumer<Session> eviction = engine.hooks().clientGrew();
            if (eviction != null && session != null) {
                eviction.accept(session); // Redis counts a client's query buffer (and argv) as it reads
                if (session.killed()) {
                    return;
                }
            }
            if (!paused && session != null) {
                // read on every batch, not once per connection: CONFIG SET proto-max-bulk-len applies to
                // connected clients at once, as in Redis
                parser.maxBulkLength(engine.config().protoMaxBulkLen.value());
                borrowReply();
                processInput();
            }
        } finally {
            endRead(); // also after a failure: the loop's context is never left attached to this connection
        }
    }

    /** After the TLS handshake: the requests that came with its end, if any. */
    void runHandshakeInput() {
        if (query != null && query.pending() > 0) {
            parser.maxBulkLength(engine.config().protoMaxBulkLen.value());
            runHeld(null);
        }
    }

    /**
     * Outside a read (resume, socket writable again, session given back): {@code first} (if any), then the input
     * held, then one flush.
     */
    void runHeld(Args first) {
        borrowReply();
        try {
            if (first != null) {
                engine.execute(session, first);
            }
            processInput();
            flush();
        } finally {
            giveBackReply();
            endRead();
        }
    }

    /**
     * After a read: input left over (part of a request, or requests not run yet) stays with this connection,
     * taken off the loop's shared context; otherwise the connection lets go of the context.
     */
    private void endRead() {
        if (query == null) {
            return;
        }
        boolean empty = query.pending() == 0 && !parser.inProgress();
        if (!ownInput) {
            LoopBuffers loop = LoopBuffers.current();
            if (!empty) {
                loop.adopt();
                ownInput = true;
                return;
            }
            loop.release();
        } else if (!empty) {
            return;
        } else {
            LoopBuffers.current().recycle(query, args, parser);
        }
        query = null;
        args = null;
        parser = null;
        ownInput = false;
    }

    /**
     * Executes the complete requests in the query buffer, until done or suspended (CLIENT PAUSE,
     * blocking commands). Replies past {@link #OUTPUT_CHUNK} bytes are
     * handed to the socket as they accumulate; once the socket stops taking them (a client that sends
     * but does not read) processing pauses, the rest of the input stays queued, reading stops, and
     * {@link #writable} resumes: memory stays bounded whatever the client pipelines.
     */
    private void processInput() {
        ReplyBuffer out = session.out();
        Limit limit = engine.outputLimits().normal();
        // Under a (moderate) hard limit the batch's replies are held until it ends, as Redis writes them
        // only before it sleeps: a client closed at the limit is sent none of them, and the limit
        // itself bounds their memory.
        int chunk = limit == null || limit.hardBytes() == 0 || limit.hardBytes() > HOLD_BELOW_LIMIT ? OUTPUT_CHUNK
                : (int) Math.max(OUTPUT_CHUNK, limit.hardBytes());
        session.drainDeliveries(); // messages published before this input was read go first, as in Redis
        if (parser == null) {
            return; // no input held
        }
        CommandChain chain = this.chain;
        if (chain != null) {
            chain.open();
        }
        while (!closeAfterReply && !suspended) {
            if (out.size() >= chunk) {
                if (chain != null) {
                    chain.close(); // the write is no command's time: a run pending before it ends here
                }
                flush();
                if (chain != null) {
                    chain.open(); // the write is no command's time
                }
                if (!canWriteMore()) {
                    paused = true;
                    stopReading();
                    if (limit != null && limit.softBytes() > 0) {
                        watchSoftLimit(limit);
                    }
                    break;
                }
            }
            // per request: an AUTH earlier in the same batch lifts the limits for the requests after it
            parser.unauthenticated(!session.authenticated() && engine.authRequired());
            boolean complete;
            try {
                complete = parser.next();
            } catch (ProtocolException e) {
                protocolError(out, e.getMessage());
                closeAfterReply = true;
                break;
            }
            if (!complete) {
                break;
            }
            if (session.killed()) {
                break; // CLIENT KILL (or ACL DELUSER) answered on another loop: nothing more runs (one volatile read)
            }
            if (session.attachedReplica()) { // one field read: a replica's connection carries the stream, no replies
                if (!ReplicaClientGuard.execute(engine, session, args)) {
                    break;
                }
                continue;
            }
            engine.execute(session, args);
            if (limit != null && overOutputLimit(limit)) {
                break;
            }
        }
        if (chain != null) {
            chain.close();
        }
        query.compactIfEmpty();
    }

    /**
     * A paused client (it sends but does not read) adds no replies, so no check would see it stay over
     * the soft limit; Redis, which keeps executing its requests, would close it once the seconds pass.
     */
    private void watchSoftLimit(Limit limit) {
        if (overOutputLimit(limit)) { // starts the soft-limit clock
            flush();
            return;
        }
        ctx.executor().schedule(() -> {
            Limit now = engine.outputLimits().normal();
            if (paused && session != null && ctx.channel().isActive() && now != null && overOutputLimit(now)) {
                flush();
            }
        }, limit.softSeconds() * 1000 + 100, TimeUnit.MILLISECONDS);
    }

    /** The socket takes output again: the input that paused runs, and reading resumes once it all ran. */
    @Override
    void writable() {
        if (paused && session != null) {
            paused = false;
            runHeld(null);
        }
        if (!paused && canWriteMore()) {
            resumeReading();
        }
    }

    /** The resume task, on the event loop: the postponed request, then the buffered input, then one flush. */
    void resumeNow() {
        if (lent || !suspended || session == null || !ctx.channel().isActive() || session.killed()) {
            return;
        }
        suspended = false;
        Args again = retry;
        retry = null;
        runHeld(again);
    }

    /** Executes nothing more until resumed; {@code request} (if any) runs again first ({@code ClientConnection}'s). */
    public void suspend(Args request) {
        suspended = true;
        // The parser's slices point into the receive buffer, which later reads may move: keep a copy.
        retry = request == null ? null : request == args ? copy(args) : request;
    }

    /** A batch that ended in an exception leaves no start for the loop's next command. */
    void abandon() {
        if (chain != null) {
            chain.close();
        }
    }

    /**
     * {@code -ERR <message>} with the message's characters as single bytes: Redis formats the
     * offending byte of "expected '$', got 'X'" with %c, so a byte above 0x7f is sent as is.
     */
    private static void protocolError(ReplyBuffer out, String message) {
        byte[] b = ("-ERR " + message + "\r\n").getBytes(StandardCharsets.ISO_8859_1);
        for (int k = 1; k < b.length - 2; k++) {
            if (b[k] == '\r' || b[k] == '\n') {
                b[k] = ' ';
            }
        }
        out.raw(b);
    }

    public boolean hasMoreInput() {
        return parser != null && parser.unparsedBytes() > 0;
    }

    public long queryBufferLength() {
        return query == null ? 0 : query.pending();
    }

    /** See {@code ClientConnection#queryBufferUnparsed}: a request's parsed arguments are no longer in qbuf. */
    public long queryBufferUnparsed() {
        RespParser p = parser;
        return p == null || !ownInput ? queryBufferLength() : p.unparsedBytes();
    }

    public long queryBufferFree() {
        return ClientFigures.queryBufferFree(ownInput ? query : null, queryBufferLength(), OwnReceiveSize.bytes(receiveSize), session);
    }

    private static Args copy(Args a) {
        byte[][] parts = new byte[a.count()][];
        for (int i = 0; i < parts.length; i++) {
            parts[i] = a.copy(i);
        }
        return Args.of(parts);
    }
}
