package dev.spinel.server.net;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.ProtocolException;
import dev.spinel.protocol.QueryBuffer;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.protocol.RespParser;
import dev.spinel.server.engine.ClientConnection;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.engine.Session;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

import java.net.InetSocketAddress;

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
 * <p>Not thread-safe: one instance per channel, used on the channel's event loop only (other
 * threads go through {@link ClientConnection#execute}).
 */
final class RespConnectionHandler extends ChannelInboundHandlerAdapter implements ClientConnection {
    private final Engine engine;
    private final QueryBuffer query = new QueryBuffer();
    private final Args args = new Args();
    private final RespParser parser = new RespParser(query, args);
    private ChannelHandlerContext ctx;
    private Session session;
    private boolean closeAfterReply;
    // Suspension (CLIENT PAUSE, blocking commands): input is buffered but not executed until resume.
    private boolean suspended;
    private Args retry;
    private String remote = "?:0";
    private String local = "?:0";

    RespConnectionHandler(Engine engine) {
        this.engine = engine;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        remote = format(ctx.channel().remoteAddress());
        local = format(ctx.channel().localAddress());
        String refusal = Admission.refusal(engine, ctx.channel().remoteAddress());
        if (refusal != null) {
            engine.stats().rejectedConnections.increment();
            ByteBuf b = ctx.alloc().buffer();
            b.writeCharSequence(refusal, java.nio.charset.StandardCharsets.UTF_8);
            ctx.writeAndFlush(b).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        session = engine.open(this);
        parser.maxBulkLength(engine.config().protoMaxBulkLen.value());
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (session != null) {
            engine.close(session);
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf in = (ByteBuf) msg;
        try {
            if (session == null || closeAfterReply) {
                return;
            }
            int n = in.readableBytes();
            engine.stats().netInputBytes.add(n);
            query.ensureWritable(n);
            in.readBytes(query.array(), query.writePos(), n);
            query.advanceWrite(n);
        } finally {
            in.release();
        }
        processInput();
        if (query.pending() > engine.config().clientQueryBufferLimit.value()) {
            // Redis closes such a client without a reply.
            closeAfterReply = true;
            ctx.close();
        }
    }

    /** Executes every complete request in the query buffer, until done or suspended. */
    private void processInput() {
        while (!closeAfterReply && !suspended) {
            boolean complete;
            try {
                complete = parser.next();
            } catch (ProtocolException e) {
                session.out().error("ERR " + e.getMessage());
                closeAfterReply = true;
                break;
            }
            if (!complete) {
                break;
            }
            engine.execute(session, args);
        }
        query.compactIfEmpty();
    }

    /** The resume task, on the event loop: the postponed request, then the buffered input, then one flush. */
    private void resumeNow() {
        if (!suspended || session == null || !ctx.channel().isActive()) {
            return;
        }
        suspended = false;
        Args again = retry;
        retry = null;
        if (again != null) {
            engine.execute(session, again);
        }
        processInput();
        flushReplies();
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        flushReplies();
        ctx.fireChannelReadComplete();
    }

    @Override
    public void flushReplies() {
        if (session == null) {
            return;
        }
        ReplyBuffer out = session.out();
        int size = out.size();
        if (size > 0) {
            ByteBuf b = ctx.alloc().ioBuffer(size);
            b.writeBytes(out.array(), 0, size);
            out.clear();
            engine.stats().netOutputBytes.add(size);
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

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable()) {
            ctx.channel().config().setAutoRead(true);
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        // Connection resets and the like: the client is gone; nothing else is affected.
        ctx.close();
    }

    // ---- ClientConnection ----

    @Override
    public String remoteAddress() {
        return remote;
    }

    @Override
    public String localAddress() {
        return local;
    }

    @Override
    public void closeAfterReply() {
        closeAfterReply = true;
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
    public java.util.concurrent.Future<?> schedule(Runnable task, long delayMillis) {
        return ctx.executor().schedule(task, delayMillis, java.util.concurrent.TimeUnit.MILLISECONDS);
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
    public int fileDescriptor() {
        return ctx != null && ctx.channel() instanceof io.netty.channel.unix.UnixChannel u ? u.fd().intValue() : -1;
    }

    @Override
    public long queryBufferLength() {
        return query.pending();
    }

    @Override
    public long queryBufferFree() {
        return query.array().length - query.writePos();
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

    private static String format(java.net.SocketAddress a) {
        if (a instanceof InetSocketAddress i) {
            String host = i.getAddress() != null ? i.getAddress().getHostAddress() : i.getHostString();
            // As Redis's anetFormatAddr: IPv6 hosts in brackets, so CLIENT KILL ADDR matches its form.
            return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + i.getPort();
        }
        return String.valueOf(a);
    }
}
