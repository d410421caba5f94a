package dev.spinel.grpc;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import dev.spinel.grpc.v1.CreateRequest;
import dev.spinel.grpc.v1.DeleteRequest;
import dev.spinel.grpc.v1.GetRequest;
import dev.spinel.grpc.v1.KVGrpc;
import dev.spinel.grpc.v1.PutRequest;
import dev.spinel.grpc.v1.TxnRequest;
import dev.spinel.grpc.v1.UpdateRequest;
import dev.spinel.server.acl.User;
import dev.spinel.server.engine.EmbeddedClient;
import dev.spinel.server.engine.EmbeddedClient.Done;
import io.grpc.Context;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * The unary KV methods the fast path ({@link FastUnaryListener}) serves without grpc-java's call machinery, and
 * one such call from its request bytes to its outcome, through the very {@link KvStore} and {@link TxnRunner}
 * operations {@link KvService} calls (so the engine units, ACL checks, refusals, versions and the log are
 * the same), in the order grpc-java's path applies its checks: authentication ({@link AuthInterceptor#user}),
 * the request's parse, the deadline, the operation. Whatever this path does not decide exactly as grpc-java's
 * would (a compressed or malformed message, one over the size limit, zero or several messages, a call CLIENT
 * PAUSE holds) is answered "not mine" ({@code null}): the listener then hands the call, untouched, to
 * grpc-java.
 *
 * <p>Thread-safety: immutable after construction apart from the metrics rows ({@link CallMetrics#count});
 * called from every event loop at once.
 */
final class FastUnaryCalls {
    /** One method: its full name, its request parser, the operation, its row of call counters. */
    static final class Route {
        final String fullName;
        final Parser<? extends MessageLite> parser;
        final Function<MessageLite, Done<? extends MessageLite>> op;
        final CounterDataPoint[] row = CallMetrics.newRow();

        @SuppressWarnings("unchecked")
        <Q extends MessageLite> Route(MethodDescriptor<Q, ?> method, Parser<Q> parser, Function<Q, Done<? extends MessageLite>> op) {
            this.fullName = method.getFullMethodName();
            this.parser = parser;
            this.op = (Function<MessageLite, Done<? extends MessageLite>>) op;
        }
    }

    private final Map<AsciiString, Route> routes = new HashMap<>();
    /** Calls answered on this path (not those handed to grpc-java): for tests and diagnostics. */
    final LongAdder served = new LongAdder();
    private final KvStore store;
    private final CallMetrics metrics;
    final int maxMessageSize;

    FastUnaryCalls(KvStore store, CallMetrics metrics, int maxMessageSize) {
        this.store = store;
        this.metrics = metrics;
        this.maxMessageSize = maxMessageSize;
        TxnRunner txn = new TxnRunner(store);
        add(new Route(KVGrpc.getGetMethod(), GetRequest.parser(), store::get));
        add(new Route(KVGrpc.getPutMethod(), PutRequest.parser(), store::put));
        add(new Route(KVGrpc.getCreateMethod(), CreateRequest.parser(), store::create));
        add(new Route(KVGrpc.getUpdateMethod(), UpdateRequest.parser(), store::update));
        add(new Route(KVGrpc.getDeleteMethod(), DeleteRequest.parser(), store::delete));
        add(new Route(KVGrpc.getTxnMethod(), TxnRequest.parser(), txn::run));
    }

    KvStore store() {
        return store;
    }

    private void add(Route r) {
        routes.put(new AsciiString("/" + r.fullName), r);
    }

    /** The route of a request's {@code :path}, or null (not a method of the fast path). */
    Route route(CharSequence path) {
        return path instanceof AsciiString a ? routes.get(a) : null;
    }

    /** Counts a call's outcome as {@link CallMetrics} counts grpc-java's calls. */
    void count(Route r, Status.Code code) {
        served.increment();
        metrics.count(r.row, r.fullName, code);
    }

    /**
     * Serves one call whose request (the whole DATA of the stream, {@code msg}) has arrived: returns the
     * {@link Done} reply, a failure {@link Status}, or null when the call is grpc-java's to serve (nothing has been
     * run then). {@code deadline} is a {@link System#nanoTime} value, meaningful when {@code hasDeadline}.
     */
    Object serve(Route r, Http2Headers headers, ByteBuf msg, boolean hasDeadline, long deadline,
                 FastUnaryListener connection) {
        int at = msg.readerIndex();
        int length = msg.readableBytes();
        if (length < 5 || msg.getByte(at) != 0) {
            return null; // no message, or a compressed one: grpc-java decides (decompresses or refuses)
        }
        int size = msg.getInt(at + 1);
        if (size != length - 5 || size > maxMessageSize) {
            return null; // several messages, a cut one, or one over the limit: grpc-java's statuses
        }
        String name = GrpcWire.ascii(headers, GrpcWire.USERNAME);
        String given = GrpcWire.ascii(headers, GrpcWire.PASSWORD);
        String auth = GrpcWire.ascii(headers, GrpcWire.AUTHORIZATION);
        User user = AuthInterceptor.user(store.client(), name, given, auth);
        if (user == null) {
            return AuthInterceptor.refusal(name, given, auth);
        }
        MessageLite request;
        try {
            request = r.parser.parseFrom(msg.nioBuffer(at + 5, size));
        } catch (InvalidProtocolBufferException e) {
            return null; // MalformedRequests words the status
        }
        if (hasDeadline && System.nanoTime() - deadline >= 0) {
            return Status.DEADLINE_EXCEEDED.withDescription("deadline passed before the call ran");
        }
        Context context = connection.contextOf(user);
        Context previous = context.attach();
        try {
            return r.op.apply(request);
        } catch (StatusRuntimeException e) {
            return e.getStatus();
        } catch (EmbeddedClient.Paused p) {
            return null; // nothing ran; grpc-java's path waits for the pause's end or the deadline
        } finally {
            context.detach(previous);
        }
    }
}
