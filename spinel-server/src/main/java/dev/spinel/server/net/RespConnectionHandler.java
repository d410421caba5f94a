package dev.spinel.server.net;


import dev.spinel.protocol.Args;
import dev.spinel.protocol.ProtocolException;
import dev.spinel.protocol.QueryBuffer;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.protocol.RespParser;
import dev.spinel.server.config.OutputBufferLimitsParam.Limit;
import dev.spinel.server.engine.clock.CommandChain;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.engine.OutputLimits;
import dev.spinel.server.engine.Propagator;
import dev.spinel.server.engine.pubsub.PubSub;
import dev.spinel.server.engine.Session;
import dev.spinel.server.engine.ports.ClientConnection;
import dev.spinel.server.log.Log;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.unix.Socket;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * One client connection on the RESP front end. Each read is appended to the connection's query
 * buffer, every complete request in it is executed inline on the event loop, replies accumulate in
 * the session's reply buffer, and they are written and flushed once per read batch
 * ({@link #channelReadComplete}). While the socket cannot take more output, reading pauses.
 *
 * <p>A suspended connection ({@link ClientConnection#suspend}: CLIENT PAUSE, blocking commands)
 * keeps reading into its query buffer but executes nothing until {@link #resume()} runs
 * {@code resumeNow} on the event loop: the postponed request (a private copy), then the buffered
 * input, then one flush.
 *
 * <p>Over TLS the handler sits behind Netty's {@link io.netty.handler.ssl.SslHandler}, sees plain RESP
 * bytes, and admits the client only once the handshake succeeded: a failed handshake opens no session
 * and costs other clients nothing; it is logged in one line, as Redis logs it.
 *
 * <p>Not thread-safe: one instance per channel, used on the channel's event loop only (other
 * threads go through {@link ClientConnection#execute}).
 *
 * <p>{@code client-output-buffer-limit normal}: when set, the client's unsent output (its reply buffer
 * plus what the socket has not taken) is checked after each command and whenever the reply buffer
 * grows during one; past the limit the client is closed without being sent anything more, its
 * remaining requests are not executed, and what its running command still writes is discarded, as
 * Redis's CLIENT_CLOSE_ASAP. Without a limit (the default) the check costs one field read per batch and
 * one per flush.
 */
final class RespConnectionHandler extends ChannelInboundHandlerAdapter implements ClientConnection, ReplyBuffer.GrowthListener {
    /** Reply bytes after which they are handed to the socket while a read batch is still being executed. */
    private static final int OUTPUT_CHUNK = 64 * 1024;
    /** Largest hard limit up to which a batch's replies are held back (see {@link #processInput}). */
    private static final long HOLD_BELOW_LIMIT = 8L * 1024 * 1024;
    private final Engine engine;
    private final boolean tls;
    /** The socket replies are sent on directly ({@link DirectSend}); null where Netty's write path is the only one. */
    private Socket socket;
    /** A TLS connection: the session opens after the handshake ({@link #userEventTriggered}). */
    private boolean handshaking;
    // The input being parsed: the loop's shared context during a read (LoopBuffers), this connection's own while
    // it holds input it could not run yet (part of a request, or requests waiting on suspension or a full
    // socket); null between reads otherwise, so an idle connection holds no buffer.
    private QueryBuffer query;
    private Args args;
    private RespParser parser;
    /** {@link #query}, {@link #args} and {@link #parser} are this connection's own, not the loop's. */
    private boolean ownInput;
    /** The capacity of the receive buffer this connection's last read went into ({@link ClientFigures#queryBufferFree}). */
    private int lastReadCapacity;
    private ChannelHandlerContext ctx;
    /** The loop thread's command timing (null on a thread without one): one clock read per command of a batch. */
    private CommandChain chain;
    private Session session;
    private boolean closeAfterReply;
    // Suspension (CLIENT PAUSE, blocking commands): input is buffered but not executed until resume.
    private boolean suspended;
    private Args retry;
    /** The session is lent to the script thread ({@link #lend}): the loop leaves it and its reply buffer alone. */
    private boolean lent;
    /** The peer went away while lent: the session is closed when given back. */
    private boolean closedWhileLent;
    /** Input processing stopped because the socket does not take more output; see {@link #processInput}. */
    private boolean paused;
    /** A flush waits for the append-only log (see {@link #flushReplies}). */
    private boolean flushPending;
    /** Closing for passing client-output-buffer-limit: nothing more is executed or sent. */
    private boolean outputLimitReached;
    /** Formatted on first use (CLIENT LIST, logs): the channel keeps the addresses themselves. */
    private volatile String remote;
    private volatile String local;

    RespConnectionHandler(Engine engine, boolean tls) {
        this.engine = engine;
        this.handshaking = tls;
        this.tls = tls;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        chain = CommandChain.current();
        socket = DirectSend.socketOf(ctx.channel(), tls);
        if (handshaking || admit()) {
            ctx.fireChannelActive();
        }
    }

    /** Opens the session, or sends Redis's refusal (maxclients, protected mode) and closes; true when admitted. */
    private boolean admit() {
        String refusal = Admission.refusal(engine, ctx.channel().remoteAddress());
        if (refusal != null) {
            engine.stats().rejectedConnections.increment();
            ByteBuf b = ctx.alloc().buffer();
            b.writeCharSequence(refusal, StandardCharsets.UTF_8);
            ctx.writeAndFlush(b).addListener(ChannelFutureListener.CLOSE);
            return false;
        }
        session = engine.open(this);
        session.out().growthListener(this);
        return true;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof SslHandshakeCompletionEvent done && handshaking) {
            handshaking = false;
            if (done.isSuccess()) {
                if (admit() && query != null && query.pending() > 0) { // requests that came with the end of the handshake
                    parser.maxBulkLength(engine.config().protoMaxBulkLen.value());
                    borrowReply();
                    try {
                        processInput();
                        flushReplies();
                    } finally {
                        giveBackReply();
                        endRead();
                    }
                }
            } else {
                logHandshakeFailure(done.cause());
                ctx.close();
            }
        }
        ctx.fireUserEventTriggered(evt);
    }

    /** One line, as Redis's "Error accepting a client connection"; a client that just went away is not an error. */
    private void logHandshakeFailure(Throwable cause) {
        String reason = ServerTls.handshakeFailureReason(cause);
        if (!ctx.channel().isActive()) {
            Log.verbose("Error accepting a client connection: closed during the TLS handshake (addr=" + remoteAddress() + ")");
        } else {
            Log.warning("Error accepting a client connection: " + reason + " (addr=" + remoteAddress() + ")");
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (!lent) {
            giveBackReply();
        }
        if (session != null && lent) {
            closedWhileLent = true; // the script thread still uses the session: closed when given back
        } else if (session != null) {
            engine.close(session);
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf in = (ByteBuf) msg;
        if ((session == null && !handshaking) || closeAfterReply) {
            in.release();
            return;
        }
        try {
            try {
                if (query == null) {
                    LoopBuffers loop = LoopBuffers.current();
                    query = loop.query;
                    args = loop.args;
                    parser = loop.parser;
                }
                int n = in.readableBytes();
                lastReadCapacity = in.capacity();
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

    /** Replies go into the loop's scratch array until {@link #giveBackReply}, unless this client has an array of its own. */
    private void borrowReply() {
        if (lent || session == null) {
            return; // the script thread writes this client's replies meanwhile: never into the loop's scratch
        }
        ReplyBuffer out = session.out();
        if (!out.borrowing() && out.array().length == 0) {
            LoopBuffers loop = LoopBuffers.current();
            loop.claimReply(this);
            out.borrow(loop.reply);
        }
    }

    /** Ends {@link #borrowReply}: unsent replies move to an array of this connection's own. On the loop. */
    void giveBackReply() {
        if (session != null && session.out().borrowing()) {
            session.out().giveBack();
            LoopBuffers.current().replyReturned(this);
        }
    }

    /**
     * Executes the complete requests in the query buffer, until done or suspended (CLIENT PAUSE,
     * blocking commands). Replies past {@link #OUTPUT_CHUNK} bytes are
     * handed to the socket as they accumulate; once the socket stops taking them (a client that sends
     * but does not read) processing pauses, the rest of the input stays queued, reading stops, and
     * {@link #channelWritabilityChanged} resumes: memory stays bounded whatever the client pipelines.
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
                flushReplies();
                if (chain != null) {
                    chain.open(); // the write is no command's time
                }
                if (!ctx.channel().isWritable()) {
                    paused = true;
                    ctx.channel().config().setAutoRead(false);
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
     * True (and the client marked for closing) when its unsent output passes the limit. Redis checks
     * as each reply is added; here after each command, when the reply buffer grows, and at each flush.
     * A subscriber's output is held to the pubsub class instead, by {@link PubSub}.
     */
    private boolean overOutputLimit(Limit limit) {
        if (outputLimitReached) {
            return true;
        }
        long pending = session.out().size() + pendingOutputBytes();
        if (pending == 0 || session.hasSubscriptions() || !OutputLimits.exceeded(session, pending, limit)) {
            return false;
        }
        outputLimitReached = true;
        closeAfterReply = true;
        OutputLimits.logClosing(session);
        session.out().discard();
        return true;
    }

    /**
     * A paused client (it sends but does not read) adds no replies, so no check would see it stay over
     * the soft limit; Redis, which keeps executing its requests, would close it once the seconds pass.
     */
    private void watchSoftLimit(Limit limit) {
        if (overOutputLimit(limit)) { // starts the soft-limit clock
            flushReplies();
            return;
        }
        ctx.executor().schedule(() -> {
            Limit now = engine.outputLimits().normal();
            if (paused && session != null && ctx.channel().isActive() && now != null && overOutputLimit(now)) {
                flushReplies();
            }
        }, limit.softSeconds() * 1000 + 100, TimeUnit.MILLISECONDS);
    }

    @Override
    public void growing(ReplyBuffer out) {
        if (!outputLimitReached && session != null) {
            Limit limit = engine.outputLimits().normal();
            if (limit != null) {
                overOutputLimit(limit);
            }
        }
    }

    /** The resume task, on the event loop: the postponed request, then the buffered input, then one flush. */
    private void resumeNow() {
        if (lent || !suspended || session == null || !ctx.channel().isActive() || session.killed()) {
            return;
        }
        suspended = false;
        Args again = retry;
        retry = null;
        borrowReply();
        try {
            if (again != null) {
                engine.execute(session, again);
            }
            processInput();
            flushReplies();
        } finally {
            giveBackReply();
            endRead();
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

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        try {
            flushReplies();
        } finally {
            giveBackReply();
        }
        ctx.fireChannelReadComplete();
    }

    @Override
    public void flushReplies() {
        if (session == null || lent) {
            return; // lent: the script thread writes the reply buffer; sent when given back
        }
        // BCAST invalidations of the keys this loop's commands changed are handed to their receivers before
        // the replies that acknowledge the writes leave, as Redis's beforeSleep (one volatile read when unused).
        engine.tracking().flushBroadcasts();
        ReplyBuffer out = session.out();
        if (session.killed()) {
            out.clear(); // a killed client gets nothing more, as Redis frees its output with it
            return;
        }
        int size = out.size();
        Limit limit = size > 0 && !outputLimitReached ? engine.outputLimits().normal() : null;
        if (outputLimitReached || (limit != null && overOutputLimit(limit))) {
            out.discard();
            ctx.channel().close(); // what the socket has not taken yet is dropped, not sent
            return;
        }
        Propagator log = engine.hooks().propagator();
        if (size > 0 && log != null && !log.acknowledged(session.logPosition())) {
            // Log before reply: these replies wait until the writes they acknowledge are logged. The
            // loop first tries to write the log itself, in a task that runs after the rest of this read
            // batch, so one write covers every connection the loop served in it (Redis's beforeSleep).
            if (!flushPending) {
                flushPending = true;
                if (writeLogThenFlush == null) {
                    writeLogThenFlush = this::writeLogThenFlush;
                }
                ctx.executor().execute(writeLogThenFlush);
            }
            return;
        }
        if (size > 0) {
            engine.stats().netOutputBytes.add(size);
            engine.stats().writesProcessed.add(1);
            int sent = closeAfterReply ? 0 : DirectSend.send(socket, ctx.channel(), out.array(), size);
            if (sent < 0) {
                out.clear();
                ctx.close(); // the peer is gone (reset, broken pipe), as Netty closes on a failed write
                return;
            }
            if (sent == size) {
                out.clear();
                return;
            }
            ByteBuf b = ctx.alloc().ioBuffer(size - sent);
            b.writeBytes(out.array(), sent, size - sent);
            out.clear();
            if (closeAfterReply) {
                ctx.writeAndFlush(b).addListener(ChannelFutureListener.CLOSE);
                return;
            }
            ctx.writeAndFlush(b, ctx.voidPromise());
            if (!ctx.channel().isWritable()) {
                ctx.channel().config().setAutoRead(false);
            }
        } else if (closeAfterReply) {
            ctx.close();
        }
    }

    /**
     * See {@link #flushReplies}: the log written by this loop, or else by the log's thread (one fsync covers every
     * connection's batch). Made on first use: most clients never wait for the log.
     */
    private Runnable writeLogThenFlush;

    private void writeLogThenFlush() {
        Propagator log = engine.hooks().propagator();
        if (session == null || log == null || log.writeNow(session.logPosition())) {
            flushPending = false;
            flushReplies();
            return;
        }
        log.whenAcknowledged(session.logPosition(), () -> ctx.executor().execute(() -> {
            flushPending = false;
            flushReplies();
        }));
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable()) {
            if (paused && session != null) {
                paused = false;
                borrowReply();
                try {
                    processInput();
                    flushReplies();
                } finally {
                    giveBackReply();
                    endRead();
                }
            }
            if (!paused && ctx.channel().isWritable()) {
                ctx.channel().config().setAutoRead(true);
            }
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // Connection resets and the like: the client is gone; nothing else is affected.
        if (chain != null) {
            chain.close(); // a batch that ended in an exception leaves no start for the loop's next command
        }
        ctx.close();
    }

    // ---- ClientConnection ----

    @Override
    public String remoteAddress() {
        String r = remote;
        if (r == null) { // racy but idempotent: any thread formats the same text
            r = ctx == null ? "?:0" : ClientFigures.address(ctx.channel().remoteAddress());
            remote = r;
        }
        return r;
    }

    @Override
    public String localAddress() {
        String l = local;
        if (l == null) {
            l = ctx == null ? "?:0" : ClientFigures.address(ctx.channel().localAddress());
            local = l;
        }
        return l;
    }

    /**
     * The session leaves the client registry at once: Redis frees such a client right after writing its reply,
     * before it reads another client's next command, so a command sent once the reply was read no longer finds
     * it (a tracking redirect to it is then broken, as Redis reports). The rest of its state goes on close.
     */
    @Override
    public void closeAfterReply() {
        closeAfterReply = true;
        if (session != null) {
            engine.clients().remove(session);
        }
    }

    @Override
    public void kill() {
        if (ctx != null) {
            ctx.channel().close();
        }
    }

    @Override
    public void execute(Runnable task) {
        ctx.executor().execute(task);
    }

    @Override
    public Future<?> schedule(Runnable task, long delayMillis) {
        return ctx.executor().schedule(task, delayMillis, TimeUnit.MILLISECONDS);
    }

    @Override
    public void suspend(Args request) {
        suspended = true;
        // The parser's slices point into the receive buffer, which later reads may move: keep a copy.
        retry = request == null ? null : request == args ? copy(args) : request;
    }

    @Override
    public void resume() {
        ctx.executor().execute(this::resumeNow);
    }

    @Override
    public boolean suspended() {
        return suspended;
    }

    @Override
    public boolean lendable() {
        return true;
    }

    @Override
    public void lend() {
        giveBackReply(); // the script thread writes the replies: they cannot stay in the loop's scratch
        suspended = true;
        retry = null;
        lent = true;
    }

    @Override
    public void giveBack() {
        try {
            ctx.executor().execute(this::givenBack);
        } catch (RejectedExecutionException e) {
            // the loop has stopped (shutdown): the connection is gone with it
        }
    }

    /** On the loop, when the script thread is done with the session: replies out, then the queued input. */
    private void givenBack() {
        lent = false;
        if (closedWhileLent) {
            engine.close(session);
            return;
        }
        suspended = false;
        if (!ctx.channel().isActive()) {
            return;
        }
        borrowReply();
        try {
            processInput(); // drains the deliveries that waited, then runs what the client pipelined
            flushReplies();
        } finally {
            giveBackReply();
            endRead();
        }
    }

    @Override
    public boolean lent() {
        return lent;
    }

    @Override
    public int fileDescriptor() {
        return ctx != null && ctx.channel() instanceof io.netty.channel.unix.UnixChannel u ? u.fd().intValue() : -1;
    }

    @Override
    public Object loop() {
        return ctx == null ? null : ctx.executor();
    }

    @Override
    public boolean hasMoreInput() {
        return parser != null && parser.unparsedBytes() > 0;
    }

    @Override
    public long queryBufferLength() {
        return query == null ? 0 : query.pending();
    }

    @Override
    public long queryBufferFree() {
        return ClientFigures.queryBufferFree(ownInput ? query : null, queryBufferLength(), lastReadCapacity, session);
    }

    private static Args copy(Args a) {
        byte[][] parts = new byte[a.count()][];
        for (int i = 0; i < parts.length; i++) {
            parts[i] = a.copy(i);
        }
        return Args.of(parts);
    }

    @Override
    public long pendingOutputBytes() {
        return ctx == null ? 0 : ctx.channel().unsafe().outboundBuffer() == null ? 0
                : ctx.channel().unsafe().outboundBuffer().totalPendingWriteBytes();
    }
}
