package dev.spinel.server.net;

import dev.spinel.server.engine.Engine;
import dev.spinel.server.engine.Session;
import dev.spinel.server.engine.ports.ClientConnection;
import dev.spinel.server.log.Log;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOption;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.unix.Socket;
import io.netty.channel.unix.UnixChannel;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.AttributeKey;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * One client connection on the RESP front end: the channel's lifecycle (admission, TLS handshake, close) and the
 * {@link ClientConnection} the engine sees. The work is in two halves: {@link ReadBatch} appends each read to
 * the connection's query buffer and executes every complete request in it inline on the event loop;
 * {@link ReplyFlusher} sends the replies, accumulated in the session's reply buffer, once per read batch
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
 * <p>The halves are this class's superclasses, so a connection is one object (see {@link ReplyFlusher}); the
 * input half implements the query-buffer figures and suspension of {@link ClientConnection}, the output half
 * {@link #pendingOutputBytes}.
 *
 * <p>Not thread-safe: one instance per channel, used on the channel's event loop only (other
 * threads go through {@link ClientConnection#execute}).
 */
final class RespConnectionHandler extends ReadBatch implements ClientConnection {
    private final boolean tls;
    /** A TLS connection: the session opens after the handshake ({@link #userEventTriggered}). */
    private boolean handshaking;
    /** The peer went away while lent: the session is closed when given back. */
    private boolean closedWhileLent;
    /**
     * Connections lent to a debugging script: where their peer's bytes go instead of the query buffer ({@link
     * #tapInput}). A map, not a field: debugging sessions are rare and every idle connection would carry the field
     * (OneHandlerObjectTest's budget); a read looks here only while the map is not empty.
     */
    private static final Map<RespConnectionHandler, Consumer<byte[]>> TAPS = new ConcurrentHashMap<>();
    /** Formatted on first use (CLIENT LIST, logs): the channel keeps the addresses themselves. */
    private volatile String remote;
    private volatile String local;
    /**
     * Run once the output drains below Netty's low water mark ({@link #whenWritable}: a replica's link); loop only.
     * An attribute of the channel, not a field: only a replica's connection ever has one, and Netty makes a
     * channel's attribute map on its first attribute, so the other connections pay nothing (docs/memory.md, round 7).
     */
    private static final AttributeKey<Runnable> WRITABLE_TASK =
            AttributeKey.valueOf(RespConnectionHandler.class, "writableTask");
    // Written by the cron's or an eviction pass's thread and by this loop: estimates, racy by design.
    private volatile long memorySample;
    private volatile long evictionShare;

    RespConnectionHandler(Engine engine, boolean tls) {
        super(engine);
        this.handshaking = tls;
        this.tls = tls;
    }

    /** Plain connections: AUTO_READ off, each read armed by the handler (RespServer's child option). */
    @Override
    boolean manualReads() {
        return !tls;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        bindOutput(ctx, DirectSend.of(ctx.channel(), tls, engine.config().ioUringDirectSend.value()));
        bindInput();
        if (handshaking || admit()) {
            armRead(); // the first read (plain connections; Netty's head asks for it only under AUTO_READ)
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
        admitted(engine.open(this));
        return true;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt == ChannelInputShutdownEvent.INSTANCE) {
            // io_uring (RespServer allows half-closure there): the client's end came in the same read loop as its last
            // requests, which ran in channelRead; their replies leave at the read-complete that follows, then the
            // connection closes, as Redis answers before it reads the end. With half-closure off, Netty's io_uring
            // channel closed before that read-complete and the replies were lost.
            closeAfterReply();
        }
        if (evt instanceof SslHandshakeCompletionEvent done && handshaking) {
            handshaking = false;
            if (done.isSuccess()) {
                if (admit()) {
                    runHandshakeInput(); // requests that came with the end of the handshake
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
        Consumer<byte[]> t = TAPS.isEmpty() ? null : TAPS.remove(this);
        if (t != null) {
            t.accept(null); // the debugger stops waiting for commands: the script runs to its end
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
        Consumer<byte[]> t = TAPS.isEmpty() ? null : TAPS.get(this);
        if (t != null) {
            byte[] b = new byte[in.readableBytes()];
            in.readBytes(b);
            in.release();
            engine.stats().netInputBytes.add(b.length);
            t.accept(b);
            return;
        }
        if ((session == null && !handshaking) || closeAfterReply) {
            in.release();
            return;
        }
        read(in);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        try {
            flush();
        } finally {
            giveBackReply();
        }
        Consumer<Session> eviction = engine.hooks().clientGrew();
        if (eviction != null && session != null) {
            eviction.accept(session); // its replies may have grown its output
        }
        armRead(); // before Netty's read loop ends: with no read pending it would take EPOLLIN off (a system call)
        // Not passed on: this handler ends the inbound path (it consumes every read), and the walk to Netty's
        // tail, which ignores the event, cost ~1 % of the loops' CPU unpipelined.
    }

    @Override
    public void pushAndFlush(BooleanSupplier writes) {
        borrowReply();
        try {
            if (writes.getAsBoolean()) {
                flushReplies();
            }
        } finally {
            giveBackReply(); // sent: no array kept; unsent: moved to one of its own
        }
    }

    @Override
    public void flushReplies() {
        flush();
        Consumer<Session> eviction = engine.hooks().clientGrew();
        if (eviction != null && session != null) {
            eviction.accept(session); // messages pushed to it (pub/sub, invalidations) grew its output
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable()) {
            writable();
            if (ctx.channel().hasAttr(WRITABLE_TASK)) {
                Runnable t = ctx.channel().attr(WRITABLE_TASK).getAndSet(null);
                if (t != null) {
                    t.run();
                }
            }
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // Connection resets and the like: the client is gone; nothing else is affected. Anything else is a bug: logged.
        if (!(cause instanceof IOException)) {
            StackTraceElement[] at = cause.getStackTrace();
            Log.warning("Closing client " + remoteAddress() + " on " + cause + (at.length > 0 ? " at " + at[0] : ""));
        }
        abandon();
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

    /**
     * Closes the connection. From another loop's thread (CLIENT KILL of a client on another loop) the close runs
     * later on the connection's own loop, so the FIN is sent here first: Redis closes the socket inside the
     * killing command, and its peer (a killed replica) sees the close before the killer's reply can lead to its
     * next request (replication.tcl asks the replica for master_link_status right after the EXEC around the kill).
     */
    @Override
    public void kill() {
        if (ctx != null) {
            Channel ch = ctx.channel();
            if (!ch.eventLoop().inEventLoop() && ch instanceof UnixChannel u && u.fd() instanceof Socket fd) {
                try {
                    fd.shutdown(false, true);
                } catch (IOException alreadyGone) {
                    // closed meanwhile: the close below has nothing left to do
                }
            }
            ch.close();
        }
    }

    /** A closed connection counts as writable (what is written to it is dropped), as {@link #whenWritable} treats it. */
    @Override
    public boolean outputWritable() {
        return ctx.channel().isWritable() || !ctx.channel().isActive();
    }

    @Override
    public void queueAtMost(int bytes) {
        ctx.channel().config().setWriteBufferWaterMark(new WriteBufferWaterMark(bytes / 4, bytes));
    }

    @Override
    public void whenWritable(Runnable task) {
        if (ctx.channel().isWritable() || !ctx.channel().isActive()) {
            task.run();
        } else {
            ctx.channel().attr(WRITABLE_TASK).set(task);
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
    public void resume() {
        ctx.executor().execute(this::resumeNow);
    }

    @Override
    public boolean suspended() {
        return suspended;
    }

    @Override
    public void noDelay(boolean on) {
        ctx.channel().config().setOption(ChannelOption.TCP_NODELAY, on); // not critical when refused, as Redis's
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
        if (ctx.executor().isShuttingDown()) {
            // The server stopped without this loop (busy past its bounded wait) and aborted the script at the end of
            // its stop: the caller gets no answer, neither the abort's error nor its pipelined requests, as Redis's
            // exit from SHUTDOWN NOSAVE leaves it.
            ctx.close();
            return;
        }
        runHeld(null); // drains the deliveries that waited, then runs what the client pipelined
    }

    @Override
    public boolean tapInput(Consumer<byte[]> sink) {
        ctx.executor().execute(() -> { // on the loop, ordered with channelInactive: a peer already gone is seen
            if (sink == null) {
                TAPS.remove(this);
            } else if (!ctx.channel().isActive()) {
                sink.accept(null);
            } else {
                TAPS.put(this, sink);
            }
        });
        return true;
    }

    @Override
    public void sendRaw(byte[] bytes) {
        ctx.executor().execute(() -> { // through the loop: ahead of the reply that givenBack sends later
            if (ctx.channel().isActive()) {
                engine.stats().netOutputBytes.add(bytes.length);
                ctx.writeAndFlush(Unpooled.wrappedBuffer(bytes), ctx.voidPromise());
            }
        });
    }

    @Override
    public boolean lent() {
        return lent;
    }

    @Override
    public int fileDescriptor() {
        return ctx != null && ctx.channel() instanceof UnixChannel u ? u.fd().intValue() : -1;
    }

    @Override
    public Object loop() {
        return ctx == null ? null : ctx.executor();
    }

    @Override
    public long memorySample() {
        return memorySample;
    }

    @Override
    public void memorySample(long bytes) {
        memorySample = bytes;
    }

    @Override
    public long evictionShare() {
        return evictionShare;
    }

    @Override
    public void evictionShare(long bytes) {
        evictionShare = bytes;
    }
}
