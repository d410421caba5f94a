package dev.spinel.grpc;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.MessageLite;
import dev.spinel.server.acl.User;
import dev.spinel.server.engine.EmbeddedClient.Done;
import dev.spinel.server.log.Log;
import io.grpc.Context;
import io.grpc.Status;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2ConnectionAdapter;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameListener;
import io.netty.handler.codec.http2.Http2FrameListenerDecorator;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Stream;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * The fast unary path of one gRPC connection: sits in front of grpc-java's own HTTP/2 frame listener (grpc-netty's
 * {@code NettyServerHandler} keeps the connection: settings, pings, flow control, GOAWAY, every other method)
 * and serves the unary KV calls ({@link FastUnaryCalls}) itself, on the event loop that read them: it keeps the
 * request's HEADERS, gathers its DATA, runs the call when the stream's end arrives and writes HEADERS, DATA
 * and trailers through the connection's HTTP/2 encoder, without grpc-java's per-call objects (server stream,
 * call, listeners, {@code Context} with a deadline timer, metadata, deframer, write queue). A call it does not
 * serve exactly as grpc-java would (see {@link FastUnaryCalls#serve}; also a request with client trailers, over
 * {@value #MAX_GATHERED} bytes, a non-identity {@code grpc-encoding}, a {@code host} or {@code connection}
 * header, an unparsable {@code grpc-timeout}) is handed to grpc-java as if it had just arrived: the kept HEADERS
 * and the DATA gathered so far are replayed into grpc-java's listener, so that call's outcome is grpc-java's own.
 *
 * <p>Flow control: gathered DATA is not returned to the stream's window until the call is served (so a replayed
 * call's bytes are still grpc-java's to return, as its deframer reads them); at most {@value #MAX_GATHERED}
 * bytes are held per stream, far below the stream window grpc-java sets (1 MiB). A write's reply waits for the
 * log ({@link KvStore#afterLogged}); a reset or closed stream then gets nothing. Replies written inline are
 * flushed by the HTTP/2 handler at the end of the read; those sent later by one flush per loop turn.
 *
 * <p>Thread-safety: confined to the connection's event loop (Netty calls every frame listener method there,
 * and the log's callbacks come back to it).
 */
final class FastUnaryListener extends Http2FrameListenerDecorator {
    /** Request bytes (gRPC framing included) gathered per stream before the call is left to grpc-java. */
    static final int MAX_GATHERED = 64 << 10;

    private final Http2ConnectionHandler handler;
    private final Http2Connection.PropertyKey key;
    private final FastUnaryCalls calls;
    private User lastUser;
    private Context lastContext;
    private ChannelHandlerContext flushCtx;
    private final Runnable flush = this::flushNow;

    /** A call on the fast path: its request HEADERS (for a replay) and the DATA gathered so far. */
    private static final class Call {
        final FastUnaryCalls.Route route;
        final Http2Headers headers;
        final int streamDependency;
        final short weight;
        final boolean exclusive;
        final int padding;
        final boolean hasDeadline;
        final long deadline;
        ByteBuf gathered;

        Call(FastUnaryCalls.Route route, Http2Headers headers, int streamDependency, short weight, boolean exclusive,
             int padding, boolean hasDeadline, long deadline) {
            this.route = route;
            this.headers = headers;
            this.streamDependency = streamDependency;
            this.weight = weight;
            this.exclusive = exclusive;
            this.padding = padding;
            this.hasDeadline = hasDeadline;
            this.deadline = deadline;
        }
    }

    FastUnaryListener(Http2FrameListener grpc, Http2ConnectionHandler handler, FastUnaryCalls calls) {
        super(grpc);
        this.handler = handler;
        this.key = handler.connection().newKey();
        this.calls = calls;
        // A stream closed under a gathering call (the connection went away): its bytes are released.
        handler.connection().addListener(new Http2ConnectionAdapter() {
            @Override
            public void onStreamClosed(Http2Stream stream) {
                Call call = stream.removeProperty(key);
                if (call != null && call.gathered != null) {
                    call.gathered.release();
                    call.gathered = null;
                }
            }
        });
    }

    /** The gRPC context of a call of {@code user} (the last one reused: a connection is usually one user's). */
    Context contextOf(User user) {
        if (user != lastUser) {
            lastContext = Context.ROOT.withValue(AuthInterceptor.USER, user);
            lastUser = user;
        }
        return lastContext;
    }

    @Override
    public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int padding,
                              boolean endStream) throws Http2Exception {
        onHeadersRead(ctx, streamId, headers, 0, Http2CodecUtil.DEFAULT_PRIORITY_WEIGHT, false, padding, endStream);
    }

    @Override
    public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int streamDependency,
                              short weight, boolean exclusive, int padding, boolean endStream) throws Http2Exception {
        Http2Stream stream = handler.connection().stream(streamId);
        Call call = stream == null ? null : stream.getProperty(key);
        if (call != null) { // the client's trailers after a request we gathered: grpc-java's case
            replay(ctx, stream, call, null, false);
        } else if (!endStream && stream != null) {
            call = fastCall(headers, streamDependency, weight, exclusive, padding);
            if (call != null) {
                stream.setProperty(key, call);
                return;
            }
        }
        listener.onHeadersRead(ctx, streamId, headers, streamDependency, weight, exclusive, padding, endStream);
    }

    /** A call of the fast path for these request headers, or null when grpc-java is to serve it. */
    private Call fastCall(Http2Headers h, int streamDependency, short weight, boolean exclusive, int padding) {
        FastUnaryCalls.Route route = calls.route(h.path());
        if (route == null || !GrpcWire.POST.contentEquals(h.method()) || !GrpcWire.grpcContentType(h.get(GrpcWire.CONTENT_TYPE))
                || h.contains(GrpcWire.CONNECTION) || h.contains(GrpcWire.HOST)) {
            return null;
        }
        CharSequence encoding = h.get(GrpcWire.GRPC_ENCODING);
        if (encoding != null && !GrpcWire.IDENTITY.contentEquals(encoding)) {
            return null;
        }
        CharSequence timeout = h.get(GrpcWire.GRPC_TIMEOUT);
        long nanos = timeout == null ? Long.MAX_VALUE : GrpcWire.timeoutNanos(timeout);
        if (nanos < 0) {
            return null;
        }
        boolean hasDeadline = nanos != Long.MAX_VALUE;
        return new Call(route, h, streamDependency, weight, exclusive, padding, hasDeadline,
                hasDeadline ? System.nanoTime() + nanos : 0);
    }

    @Override
    public int onDataRead(ChannelHandlerContext ctx, int streamId, ByteBuf data, int padding, boolean endOfStream)
            throws Http2Exception {
        Http2Stream stream = handler.connection().stream(streamId);
        Call call = stream == null ? null : stream.getProperty(key);
        if (call == null) {
            return listener.onDataRead(ctx, streamId, data, padding, endOfStream);
        }
        int before = call.gathered == null ? 0 : call.gathered.readableBytes();
        if (before + data.readableBytes() > MAX_GATHERED) {
            replay(ctx, stream, call, data, endOfStream);
            return padding;
        }
        if (!endOfStream) {
            if (call.gathered == null) {
                call.gathered = ctx.alloc().buffer(Math.max(256, data.readableBytes() * 2));
            }
            call.gathered.writeBytes(data, data.readerIndex(), data.readableBytes());
            return padding; // the data bytes stay unreturned until the call is served (or replayed)
        }
        ByteBuf request = data;
        if (call.gathered != null) {
            request = call.gathered.writeBytes(data, data.readerIndex(), data.readableBytes());
        }
        Object outcome;
        try {
            outcome = calls.serve(call.route, call.headers, request, call.hasDeadline, call.deadline, this);
        } catch (RuntimeException e) {
            Log.warning("gRPC " + call.route.fullName + " failed: " + e);
            outcome = Status.UNKNOWN.withDescription("Application error processing RPC");
        }
        if (outcome == null) {
            if (call.gathered != null) {
                replay(ctx, stream, call, null, true);
            } else {
                replay(ctx, stream, call, data, true);
            }
            return padding;
        }
        stream.removeProperty(key);
        int consumed = request.readableBytes();
        if (call.gathered != null) {
            call.gathered.release();
            call.gathered = null;
        }
        if (outcome instanceof Status s) {
            fail(ctx, streamId, call.route, s);
        } else {
            Done<?> done = (Done<?>) outcome;
            MessageLite reply = (MessageLite) done.value();
            if (done.logPosition() == 0) {
                reply(ctx, streamId, call.route, reply);
            } else {
                calls.store().afterLogged(done.logPosition(), ctx.executor(), () -> {
                    reply(ctx, streamId, call.route, reply);
                    flushLater(ctx);
                });
            }
        }
        return padding + consumed;
    }

    /**
     * Hands a call to grpc-java as if its frames arrived now: the kept HEADERS, the DATA gathered (the final one
     * when {@code data} is null and {@code endOfStream}), then {@code data} when given.
     */
    private void replay(ChannelHandlerContext ctx, Http2Stream stream, Call call, ByteBuf data, boolean endOfStream)
            throws Http2Exception {
        stream.removeProperty(key);
        int id = stream.id();
        listener.onHeadersRead(ctx, id, call.headers, call.streamDependency, call.weight, call.exclusive, call.padding, false);
        ByteBuf gathered = call.gathered;
        call.gathered = null;
        if (gathered != null) {
            try {
                listener.onDataRead(ctx, id, gathered, 0, data == null && endOfStream);
            } finally {
                gathered.release();
            }
        }
        if (data != null) {
            listener.onDataRead(ctx, id, data, 0, endOfStream);
        }
    }

    @Override
    public void onRstStreamRead(ChannelHandlerContext ctx, int streamId, long errorCode) throws Http2Exception {
        Http2Stream stream = handler.connection().stream(streamId);
        Call call = stream == null ? null : stream.removeProperty(key);
        if (call != null && call.gathered != null) {
            call.gathered.release();
            call.gathered = null;
        }
        listener.onRstStreamRead(ctx, streamId, errorCode); // grpc-java counts resets (its flood limit)
    }

    /** The stream's answer: HEADERS, the message, trailers; nothing when the stream is gone or reset meanwhile. */
    private void reply(ChannelHandlerContext ctx, int streamId, FastUnaryCalls.Route route, MessageLite message) {
        if (!writable(streamId)) {
            return;
        }
        int size = message.getSerializedSize();
        ByteBuf buf = ctx.alloc().buffer(5 + size);
        buf.writeByte(0).writeInt(size);
        try {
            CodedOutputStream out = CodedOutputStream.newInstance(buf.nioBuffer(5, size));
            message.writeTo(out);
            out.checkNoSpaceLeft();
        } catch (IOException e) {
            buf.release();
            throw new UncheckedIOException(e);
        }
        buf.writerIndex(5 + size);
        calls.count(route, Status.Code.OK);
        var encoder = handler.encoder();
        encoder.writeHeaders(ctx, streamId, GrpcWire.OK_HEADERS, 0, false, ctx.newPromise());
        encoder.writeData(ctx, streamId, buf, 0, false, ctx.newPromise());
        encoder.writeHeaders(ctx, streamId, GrpcWire.OK_TRAILERS, 0, true, ctx.newPromise());
    }

    /** A failed call's status, as trailers only (grpc-java's form of a status before any message). */
    private void fail(ChannelHandlerContext ctx, int streamId, FastUnaryCalls.Route route, Status status) {
        if (!writable(streamId)) {
            return;
        }
        calls.count(route, status.getCode());
        handler.encoder().writeHeaders(ctx, streamId, GrpcWire.trailersOnly(status), 0, true, ctx.newPromise());
    }

    private boolean writable(int streamId) {
        Http2Stream s = handler.connection().stream(streamId);
        return s != null && s.state().localSideOpen() && !s.isResetSent();
    }

    private void flushNow() {
        ChannelHandlerContext c = flushCtx;
        flushCtx = null;
        handler.flush(c);
    }

    /** One flush of the connection after this loop turn's late replies (those the log held). */
    private void flushLater(ChannelHandlerContext ctx) {
        if (flushCtx == null) {
            flushCtx = ctx;
            ctx.executor().execute(flush);
        }
    }
}
