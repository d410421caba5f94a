package dev.spinel.grpc;

import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.prometheus.metrics.core.datapoints.CounterDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Counts the gRPC service's calls by full method name and status code, as {@code spinel_grpc_calls_total{method,code}}
 * on the server's Prometheus endpoint (grpc-java's own metric names need OpenTelemetry, which Spinel does not ship).
 * A call looks up its method's row of counters by the method descriptor's identity (one per method, hashed by
 * identity) and increments the one of its status code: no label strings, no labelled-series lookup per call (each
 * series is looked up once, the first time its method ends with its code).
 *
 * <p>Thread-safety: safe for concurrent calls. A row's slots are written without a fence: racing first calls may
 * both look the series up (the counter hands out one data point per label values), and a data point read through
 * the row is safe to use unfenced (its state is final adders, already published by the counter's own map).
 */
final class CallMetrics implements ServerInterceptor {
    private static final Status.Code[] CODES = Status.Code.values();
    private final Counter calls;
    /** Per method: its series by status code (index: the code's ordinal), filled as codes occur. */
    private final ConcurrentHashMap<MethodDescriptor<?, ?>, CounterDataPoint[]> rows = new ConcurrentHashMap<>();

    CallMetrics(PrometheusRegistry registry) {
        // No exemplars: Spinel has no tracing to link them to, and sampling one cost each call a clock read and a
        // scheduler check (~3 % of the event loop's samples in a profile of unary Gets).
        this.calls = Counter.builder().name("spinel_grpc_calls").help("gRPC calls handled, by method and status code")
                .labelNames("method", "code").withoutExemplars().register(registry);
    }

    /**
     * Counts a call of {@code method} served outside grpc-java's call machinery (the fast unary path,
     * {@link FastUnaryCalls}) in {@code row}, that method's own row (from {@link #newRow}): the same series as a
     * call through {@link #interceptCall}.
     */
    void count(CounterDataPoint[] row, String method, Status.Code code) {
        int c = code.ordinal();
        CounterDataPoint point = row[c];
        if (point == null) {
            point = calls.labelValues(method, code.name());
            row[c] = point;
        }
        point.inc();
    }

    /** An empty row for {@link #count}. */
    static CounterDataPoint[] newRow() {
        return new CounterDataPoint[CODES.length];
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        MethodDescriptor<Q, R> method = call.getMethodDescriptor();
        CounterDataPoint[] row = rows.get(method);
        if (row == null) {
            row = rows.computeIfAbsent(method, m -> new CounterDataPoint[CODES.length]);
        }
        CounterDataPoint[] byCode = row;
        return next.startCall(new SimpleForwardingServerCall<>(call) {
            @Override
            public void close(Status status, Metadata trailers) {
                int code = status.getCode().ordinal();
                CounterDataPoint point = byCode[code];
                if (point == null) {
                    point = calls.labelValues(method.getFullMethodName(), CODES[code].name());
                    byCode[code] = point;
                }
                point.inc();
                super.close(status, trailers);
            }
        }, headers);
    }
}
