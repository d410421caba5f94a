package dev.spinel.grpc;

import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServiceDescriptor;
import io.grpc.Status;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * A request that does not parse as its message fails the call with INVALID_ARGUMENT. Left to grpc-java, the
 * parse error escapes from the transport's listener: the client gets UNKNOWN ("Application error processing
 * RPC") and the server logs a SEVERE stack trace per such message, which any client could use to flood the log.
 * Here the request marshaller catches the error, notes it for the calling thread and hands over an empty
 * message; the call's listener, which grpc-java invokes right after parsing on the same thread, closes the call
 * instead of passing the message on, and ignores what else arrives for it.
 *
 * <p>Thread-safety: stateless but for a per-thread note, set by a failed parse and read by the listener call
 * that follows it on the same thread (grpc-java parses each message right before delivering it).
 */
final class MalformedRequests {
    private static final ThreadLocal<String> FAILED = new ThreadLocal<>();

    private MalformedRequests() {
    }

    /** {@code service} with every method's requests parsed as described above; its schema (for reflection) kept. */
    static ServerServiceDefinition guard(ServerServiceDefinition service) {
        ServiceDescriptor old = service.getServiceDescriptor();
        ServiceDescriptor.Builder descriptor = ServiceDescriptor.newBuilder(old.getName())
                .setSchemaDescriptor(old.getSchemaDescriptor());
        List<ServerMethodDefinition<?, ?>> methods = new ArrayList<>();
        for (ServerMethodDefinition<?, ?> m : service.getMethods()) {
            ServerMethodDefinition<?, ?> g = guard(m);
            methods.add(g);
            descriptor.addMethod(g.getMethodDescriptor());
        }
        ServerServiceDefinition.Builder b = ServerServiceDefinition.builder(descriptor.build());
        methods.forEach(b::addMethod);
        return b.build();
    }

    private static <Q, R> ServerMethodDefinition<Q, R> guard(ServerMethodDefinition<Q, R> m) {
        MethodDescriptor<Q, R> d = m.getMethodDescriptor();
        MethodDescriptor.Marshaller<Q> requests = d.getRequestMarshaller();
        MethodDescriptor.Marshaller<Q> checked = new MethodDescriptor.Marshaller<>() {
            @Override
            public InputStream stream(Q value) {
                return requests.stream(value);
            }

            @Override
            public Q parse(InputStream stream) {
                // A note left by a call that never reached a guarded listener (refused by AuthInterceptor) goes
                // here: each message is parsed just before its listener sees it, on the same thread.
                FAILED.remove();
                try {
                    return requests.parse(stream);
                } catch (RuntimeException e) {
                    Throwable cause = e.getCause() != null ? e.getCause() : e;
                    FAILED.set("malformed request: " + cause.getMessage());
                    return requests.parse(new ByteArrayInputStream(new byte[0]));
                }
            }
        };
        ServerCallHandler<Q, R> handler = m.getServerCallHandler();
        return ServerMethodDefinition.create(d.toBuilder(checked, d.getResponseMarshaller()).build(),
                (call, headers) -> new Guarded<>(handler.startCall(call, headers), call));
    }

    /** Closes its call at a malformed request; passes nothing more to the service after that. */
    private static final class Guarded<Q, R> extends ForwardingServerCallListener.SimpleForwardingServerCallListener<Q> {
        private final ServerCall<Q, R> call;
        private boolean closed;

        Guarded(ServerCall.Listener<Q> next, ServerCall<Q, R> call) {
            super(next);
            this.call = call;
        }

        @Override
        public void onMessage(Q message) {
            String failed = FAILED.get();
            if (failed != null) {
                FAILED.remove();
                if (!closed) {
                    closed = true;
                    call.close(Status.INVALID_ARGUMENT.withDescription(failed), new Metadata());
                }
                return;
            }
            if (!closed) {
                super.onMessage(message);
            }
        }

        @Override
        public void onHalfClose() {
            if (!closed) {
                super.onHalfClose();
            }
        }

        @Override
        public void onReady() {
            if (!closed) {
                super.onReady();
            }
        }
    }
}
