package dev.spinel.grpc;

import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

/**
 * Counts the gRPC service's calls by full method name and status code, as {@code spinel_grpc_calls_total{method,code}}
 * on the server's Prometheus endpoint (grpc-java's own metric names need OpenTelemetry, which Spinel does not ship).
 * One labelled-counter lookup when a call ends.
 *
 * <p>Thread-safety: stateless apart from the counter, which is safe for concurrent increments.
 */
final class CallMetrics implements ServerInterceptor {
    private final Counter calls;

    CallMetrics(PrometheusRegistry registry) {
        this.calls = Counter.builder().name("spinel_grpc_calls").help("gRPC calls handled, by method and status code")
                .labelNames("method", "code").register(registry);
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        String method = call.getMethodDescriptor().getFullMethodName();
        return next.startCall(new SimpleForwardingServerCall<>(call) {
            @Override
            public void close(Status status, Metadata trailers) {
                calls.labelValues(method, status.getCode().name()).inc();
                super.close(status, trailers);
            }
        }, headers);
    }
}
