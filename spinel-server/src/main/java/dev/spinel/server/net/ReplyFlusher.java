package dev.spinel.server.net;

import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.config.OutputBufferLimitsParam.Limit;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.engine.OutputLimits;
import dev.spinel.server.engine.Propagator;
import dev.spinel.server.engine.Session;
import dev.spinel.server.engine.pubsub.PubSub;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.unix.Socket;

/**
 * The output side of one RESP connection: the session's replies go into the loop's scratch array during a read
 * batch ({@link #borrowReply}), and leave once per batch ({@link #flush}), straight to the socket when it takes
 * them ({@link DirectSend}; on io_uring queued as one send from the loop, {@link UringSend}), else through Netty's
 * write path, with reading paused while the socket is full.
 * Replies that acknowledge writes wait until the append-only log holds them (log before reply).
 *
 * <p>{@code client-output-buffer-limit normal}: when set, the client's unsent output (its reply buffer
 * plus what the socket has not taken) is checked after each command and whenever the reply buffer
 * grows during one; past the limit the client is closed without being sent anything more, its
 * remaining requests are not executed, and what its running command still writes is discarded, as
 * Redis's CLIENT_CLOSE_ASAP. Without a limit (the default) the check costs one field read per batch and
 * one per flush.
 *
 * <p>One of the three layers of a connection's one handler object: {@code ReplyFlusher} (output) is extended by
 * {@link ReadBatch} (input), which {@link RespConnectionHandler} (lifecycle) extends, so that an idle connection
 * holds one object with the engine, context and session once, not three that each refer to them and to each
 * other (~100 B per connection; docs/memory.md, round 5). The halves stay in files of their own.
 *
 * <p>Not thread-safe: one instance per connection, used on the channel's event loop only; while the session is
 * {@link #lent} the script thread writes the reply buffer and this class leaves it alone.
 */
abstract class ReplyFlusher extends ChannelInboundHandlerAdapter implements ReplyBuffer.GrowthListener {
    final Engine engine;
    ChannelHandlerContext ctx;
    Session session;
    /**
     * How replies leave besides Netty's write path: the epoll {@link Socket} they are sent on directly
     * ({@link DirectSend}); on io_uring the loop's {@link UringSend}, or while a send is in flight that
     * {@link UringSend.Send} (one field for the three states: a field more per connection would take the handler
     * past its 136 bytes); null where Netty's write path is the only one (TLS, NIO).
     */
    private Object direct;
    /** The session is lent to the script thread: the loop leaves it and its reply buffer alone. */
    boolean lent;
    /** A flush waits for the append-only log (see {@link #flush}). */
    private boolean flushPending;
    /** Closing for passing client-output-buffer-limit: nothing more is executed or sent. */
    private boolean outputLimitReached;
    /** Nothing more is executed: the connection closes once its replies are sent. */
    boolean closeAfterReply;
    /** Reading stopped because the socket takes no more output ({@link #stopReading}); {@link #manualReads} only. */
    private boolean readsStopped;

    ReplyFlusher(Engine engine) {
        this.engine = engine;
    }

    /**
     * This handler asks for each next read ({@link #armRead}) and Netty's {@code AUTO_READ} is off (plain
     * connections): after each read batch Netty's head would otherwise walk the pipeline from its tail to ask again
     * for the read (docs/performance.md's seventh pass). A method, not a field: a field more per connection took
     * the handler from 136 to 144 bytes.
     */
    abstract boolean manualReads();

    /** At a read batch's end and once on admission: the next read, unless reading is stopped. On the loop. */
    final void armRead() {
        if (!readsStopped && manualReads()) {
            ctx.channel().unsafe().beginRead(); // what Netty's head does for a read() that reaches it, without the walk
        }
    }

    /** The socket takes no more output: no more reads until {@link #resumeReading}. On the loop. */
    final void stopReading() {
        if (!manualReads()) {
            ctx.channel().config().setAutoRead(false);
        } else if (!readsStopped) {
            readsStopped = true;
            // A read may be pending already (armed at the last batch's end): turning AUTO_READ on and off again is
            // Netty's one public way to take it back at once (EPOLLIN off), as setAutoRead(false) did with it on.
            ChannelConfig config = ctx.channel().config();
            config.setAutoRead(true);
            config.setAutoRead(false);
        }
    }

    /** The socket takes output again: reading resumes (a no-op while it was not stopped). On the loop. */
    final void resumeReading() {
        if (!manualReads()) {
            ctx.channel().config().setAutoRead(true);
        } else if (readsStopped) {
            readsStopped = false;
            ctx.read();
        }
    }

    /** On channel activation. */
    void bindOutput(ChannelHandlerContext ctx, Object direct) {
        this.ctx = ctx;
        this.direct = direct;
    }

    /**
     * The input may go on producing replies: no send in flight (replies made meanwhile wait for it in the reply
     * buffer) and Netty's outbound buffer below its high-water mark. On the loop.
     */
    final boolean canWriteMore() {
        return !(direct instanceof UringSend.Send) && ctx.channel().isWritable();
    }

    /** Reading and the held input resume once the output drains (the input half's). On the loop. */
    abstract void writable();

    /** Once the client is admitted: its replies are watched for the output limit as they grow. */
    void admitted(Session session) {
        this.session = session;
        session.out().growthListener(this);
    }

    /** Replies go into the loop's scratch array until {@link #giveBackReply}, unless this client has an array of its own. */
    void borrowReply() {
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
     * True (and the client marked for closing) when its unsent output passes the limit. Redis checks
     * as each reply is added; here after each command, when the reply buffer grows, and at each flush.
     * A subscriber's output is held to the pubsub class instead, by {@link PubSub}.
     */
    boolean overOutputLimit(Limit limit) {
        return overOutputLimit(limit, 0);
    }

    /** {@code adding}: bytes a reply is about to add (checked before the array grows for them, as Redis checks as it adds). */
    private boolean overOutputLimit(Limit limit, int adding) {
        if (outputLimitReached) {
            return true;
        }
        long pending = session.out().size() + adding + pendingOutputBytes();
        if (pending == 0 || session.hasSubscriptions() || !OutputLimits.exceeded(session, pending, limit)) {
            return false;
        }
        outputLimitReached = true;
        closeAfterReply = true;
        OutputLimits.logClosing(session);
        session.out().discard();
        // Gone at once, as Redis's CLIENT_CLOSE_ASAP client: not listed, and its replies no longer count for
        // maxmemory-clients (else they evicted other clients while this one closed)
        session.kill();
        return true;
    }

    @Override
    public void growing(ReplyBuffer out, int adding) {
        if (!outputLimitReached && session != null) {
            Limit limit = engine.outputLimits().normal();
            if (limit != null) {
                // before the array grows: a reply that takes the client past its limit is not held at all, so
                // nothing (the cron's client eviction pass) counts it meanwhile
                overOutputLimit(limit, adding);
            }
        }
    }

    /** Sends the replies accumulated (the connection's flushReplies): once per read batch, and as they pass a chunk. */
    void flush() {
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
        if (direct instanceof UringSend.Send) {
            return; // a send is in flight: these replies (or the close) follow at its completion (uringSent)
        }
        boolean closeAfterReply = this.closeAfterReply;
        if (size > 0) {
            engine.stats().netOutputBytes.add(size);
            engine.stats().writesProcessed.add(1);
            int sent = closeAfterReply ? 0 : sendDirect(out.array(), size);
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
                stopReading();
            }
        } else if (closeAfterReply) {
            ctx.close();
        }
    }

    /** How many bytes of {@code bytes[0, size)} left (or, on io_uring, are in flight) without Netty; -1: the peer is gone. */
    private int sendDirect(byte[] bytes, int size) {
        Object d = direct;
        if (d instanceof Socket socket) {
            return DirectSend.send(socket, ctx.channel(), bytes, size);
        }
        if (d instanceof UringSend u) {
            UringSend.Send s = u.send(this, ctx.channel(), bytes, size);
            if (s != null) {
                direct = s;
                return size;
            }
        }
        return 0;
    }

    /**
     * The io_uring send {@code s} completed with {@code res} (bytes the socket took, or a negative errno): what it
     * did not take goes through Netty's write path, then the replies made meanwhile, then reading resumes if the
     * input paused for it. On the loop, before {@code s}'s buffer is reused.
     */
    final void uringSent(UringSend.Send s, int res) {
        direct = s.sender;
        if (!ctx.channel().isActive()) {
            return;
        }
        if (res < 0 && res != -11) { // not EAGAIN: reset, broken pipe...
            if (session != null) {
                session.out().clear();
            }
            ctx.close(); // the peer is gone, as Netty closes on a failed write
            return;
        }
        int taken = Math.max(res, 0);
        if (taken < s.length) {
            ByteBuf b = ctx.alloc().ioBuffer(s.length - taken);
            s.copyRest(taken, b);
            if (closeAfterReply && !lent && (session == null || session.out().size() == 0)) {
                ctx.writeAndFlush(b).addListener(ChannelFutureListener.CLOSE);
                return;
            }
            ctx.writeAndFlush(b, ctx.voidPromise());
        }
        if (session != null && !lent && (session.out().size() > 0 || closeAfterReply)) {
            flush(); // through Netty if the rest went there: it stays in order behind it
        }
        if (!ctx.channel().isWritable()) {
            stopReading();
        } else if (!(direct instanceof UringSend.Send)) {
            writable();
        }
    }

    /**
     * See {@link #flush}: the log written by this loop, or else by the log's thread (one fsync covers every
     * connection's batch). Made on first use: most clients never wait for the log.
     */
    private Runnable writeLogThenFlush;

    private void writeLogThenFlush() {
        Propagator log = engine.hooks().propagator();
        if (session == null || log == null || log.writeNow(session.logPosition())) {
            flushPending = false;
            flush();
            return;
        }
        log.whenAcknowledged(session.logPosition(), () -> ctx.executor().execute(() -> {
            flushPending = false;
            flush();
        }));
    }

    /** The bytes the socket has not taken yet: an io_uring send in flight, then Netty's outbound buffer ({@code ClientConnection}'s). */
    public long pendingOutputBytes() {
        long inFlight = direct instanceof UringSend.Send s ? s.length : 0;
        return ctx == null ? 0 : ctx.channel().unsafe().outboundBuffer() == null ? inFlight
                : inFlight + ctx.channel().unsafe().outboundBuffer().totalPendingWriteBytes();
    }
}
