package dev.spinel.grpc;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;

/**
 * A failed RPC's status as an exception without a stack trace: NOT_FOUND and ALREADY_EXISTS are
 * ordinary outcomes of the API (a large share of calls under load), and filling in a stack trace
 * through the transport's deep call chain would cost more than the store operation itself.
 *
 * <p>Thread-safety: immutable.
 */
final class Failure extends StatusRuntimeException {
    private Failure(Status status) {
        super(status);
    }

    static StatusRuntimeException of(Status status) {
        return new Failure(status);
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
        return this;
    }
}
