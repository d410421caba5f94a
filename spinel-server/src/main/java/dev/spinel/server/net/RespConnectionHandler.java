package dev.spinel.server.net;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.ProtocolException;
import dev.spinel.protocol.QueryBuffer;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.protocol.RespParser;
import dev.spinel.server.engine.ClientConnection;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.engine.Propagator;
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
    /** A flush waits for the append-only log (see {@link #flushReplies}). */
    private boolean flushPending;
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

    /** Executes every complete request in the query buffer. */
    private void processInput() {
        while (!closeAfterReply) {
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
        Propagator log = engine.propagator();
        if (size > 0 && log != null && !log.acknowledged(session.logPosition())) {
            // Log before reply: these replies wait until the writes they acknowledge are logged
            // (one fsync covers the batches of every connection waiting for it).
            if (!flushPending) {
                flushPending = true;
                log.whenAcknowledged(session.logPosition(), () -> ctx.executor().execute(() -> {
                    flushPending = false;
                    flushReplies();
                }));
            }
            return;
        }
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
    public long pendingOutputBytes() {
        return ctx == null ? 0 : ctx.channel().unsafe().outboundBuffer() == null ? 0
                : ctx.channel().unsafe().outboundBuffer().totalPendingWriteBytes();
    }

    private static String format(java.net.SocketAddress a) {
        if (a instanceof InetSocketAddress i) {
            String host = i.getAddress() != null ? i.getAddress().getHostAddress() : i.getHostString();
            return host + ":" + i.getPort();
        }
        return String.valueOf(a);
    }
}
