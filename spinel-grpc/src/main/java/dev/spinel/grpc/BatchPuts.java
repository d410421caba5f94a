package dev.spinel.grpc;

import dev.spinel.grpc.v1.BatchOp;
import dev.spinel.grpc.v1.BatchRequest;
import dev.spinel.grpc.v1.BatchResult;
import dev.spinel.grpc.v1.Header;
import dev.spinel.grpc.v1.PutRequest;
import dev.spinel.grpc.v1.PutResponse;
import dev.spinel.server.engine.EmbeddedClient;
import dev.spinel.server.engine.EmbeddedClient.Access;
import dev.spinel.server.engine.EmbeddedClient.Done;
import dev.spinel.server.errors.RedisError;
import io.grpc.StatusRuntimeException;

import java.util.ArrayList;
import java.util.List;

/**
 * A run of consecutive Puts of one Batch message applied as one unit of the engine instead of one unit per Put:
 * one pass over the stripe locks, one refusal check (CLIENT PAUSE, MISCONF, OOM), one block in the append-only log
 * and to the replicas ({@code MULTI}, the {@code SET}s, {@code EXEC}). Each Put still writes through
 * {@code SET} on the engine's command path, so notifications, tracking, MONITOR and the dirty counter see each.
 * The run is atomic as a whole (stronger than one Put at a time: no client sees half of it). A Put that fails its
 * own checks (empty key, value over proto-max-bulk-len, negative TTL, ACL) gets its error result and is left out
 * of the run; the others are written. At most {@link #MAX_RUN} Puts per unit, so that a message of 10,000 Puts
 * does not hold every stripe for the whole message.
 *
 * <p>Thread-safety: stateless apart from the (thread-safe) store; each call's state is its own.
 */
final class BatchPuts {
    /** The most Puts one unit applies. */
    static final int MAX_RUN = 64;

    private final KvStore store;

    BatchPuts(KvStore store) {
        this.store = store;
    }

    /** Where the run of Puts starting at {@code from} ends (exclusive): at the first other op, or after MAX_RUN. */
    static int runEnd(BatchRequest req, int from) {
        int end = from;
        int n = Math.min(req.getOpsCount(), from + MAX_RUN);
        while (end < n && req.getOps(end).getOpCase() == BatchOp.OpCase.PUT) {
            end++;
        }
        return end;
    }

    /**
     * Applies the Puts {@code [from, end)} of {@code req} as one unit; their results go to {@code results} in order.
     * Returns the log position the reply waits for.
     *
     * @throws EmbeddedClient.Paused CLIENT PAUSE holds writes: nothing of the run was written
     */
    long apply(BatchRequest req, int from, int end, List<BatchResult> results) {
        int n = end - from;
        byte[][] keys = new byte[n][];
        byte[][] values = new byte[n][];
        long[] expireAt = new long[n];
        StatusRuntimeException[] failed = new StatusRuntimeException[n];
        List<byte[]> locked = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            PutRequest r = req.getOps(from + i).getPut();
            try {
                keys[i] = KvStore.key(r.getKey());
                values[i] = store.value(r.getValue());
                expireAt[i] = KvStore.expireAt(r.getTtlMs());
                store.authorize(keys[i], Access.GROW);
                locked.add(keys[i]);
            } catch (StatusRuntimeException e) {
                failed[i] = e;
            }
        }
        PutResponse.Builder[] written = new PutResponse.Builder[n];
        long position = 0;
        if (!locked.isEmpty()) {
            try {
                Done<Void> d = store.runAuthorized(locked, Access.GROW, k -> {
                    for (int i = 0; i < n; i++) {
                        if (failed[i] != null) {
                            continue;
                        }
                        try {
                            PutResponse.Builder b = PutResponse.newBuilder();
                            store.putLocked(k, keys[i], values[i], expireAt[i], b);
                            written[i] = b;
                        } catch (RedisError e) {
                            failed[i] = KvStore.refused(e);
                        } catch (StatusRuntimeException e) {
                            failed[i] = e;
                        }
                    }
                    return null;
                });
                position = d.logPosition();
            } catch (StatusRuntimeException refused) { // OOM, MISCONF: nothing of the run was written
                for (int i = 0; i < n; i++) {
                    if (failed[i] == null) {
                        failed[i] = refused;
                    }
                }
            }
        }
        Header header = store.header(); // after the run, as each Put's reply reads it after its own unit
        for (int i = 0; i < n; i++) {
            results.add(failed[i] != null ? failure(failed[i])
                    : BatchResult.newBuilder().setPut(written[i].setHeader(header)).build());
        }
        return position;
    }

    /** A failed op's result: the status code and description its unary RPC would have returned. */
    static BatchResult failure(StatusRuntimeException e) {
        BatchResult.Builder b = BatchResult.newBuilder().setCode(e.getStatus().getCode().value());
        if (e.getStatus().getDescription() != null) {
            b.setMessage(e.getStatus().getDescription());
        }
        return b.build();
    }
}
