package dev.spinel.grpc;

import dev.spinel.grpc.v1.Compare;
import dev.spinel.grpc.v1.DeleteResponse;
import dev.spinel.grpc.v1.GetResponse;
import dev.spinel.grpc.v1.KeyValue;
import dev.spinel.grpc.v1.PutResponse;
import dev.spinel.grpc.v1.RequestOp;
import dev.spinel.grpc.v1.ResponseOp;
import dev.spinel.grpc.v1.TxnRequest;
import dev.spinel.grpc.v1.TxnResponse;
import dev.spinel.server.engine.EmbeddedClient.Access;
import dev.spinel.server.engine.EmbeddedClient.Done;
import dev.spinel.server.engine.EmbeddedClient.Locked;
import io.grpc.Status;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Txn (etcd's model): every compare is evaluated and the chosen branch of ops is run as one unit of the
 * engine's client, with the stripes of all keys involved locked in the global order, so the whole Txn is
 * atomic against RESP commands and other RPCs, and its writes reach the append-only log as one
 * MULTI/EXEC block (replayed atomically). All requests are validated before any lock is taken; an
 * invalid Txn changes nothing. A Txn that may write is refused as a RESP write would be (MISCONF; OOM
 * when it has a put).
 *
 * <p>Thread-safety: stateless; one call per Txn, any thread.
 */
final class TxnRunner {
    static final int MAX_KEYS = 128;

    private final KvStore store;

    TxnRunner(KvStore store) {
        this.store = store;
    }

    Done<TxnResponse> run(TxnRequest r) {
        List<byte[]> keys = new ArrayList<>();
        for (Compare c : r.getComparesList()) {
            keys.add(KvStore.key(c.getKey()));
            if (c.getTarget() == Compare.Target.EXISTS && c.getResult() != Compare.Result.EQUAL
                    && c.getResult() != Compare.Result.NOT_EQUAL) {
                throw invalid("an EXISTS compare takes EQUAL or NOT_EQUAL");
            }
            if (c.getTarget() == Compare.Target.UNRECOGNIZED || c.getResult() == Compare.Result.UNRECOGNIZED) {
                throw invalid("unknown compare target or result");
            }
        }
        Access access = Access.READ;
        access = max(access, validate(r.getSuccessOpsList(), keys));
        access = max(access, validate(r.getFailureOpsList(), keys));
        if (keys.size() > MAX_KEYS) {
            throw invalid("at most " + MAX_KEYS + " keys per Txn");
        }
        TxnResponse.Builder out = TxnResponse.newBuilder();
        Done<TxnResponse.Builder> d = store.run(keys, access, k -> {
            boolean ok = true;
            for (Compare c : r.getComparesList()) {
                if (!holds(k, c)) {
                    ok = false;
                    break;
                }
            }
            out.setSucceeded(ok);
            List<RequestOp> branch = ok ? r.getSuccessOpsList() : r.getFailureOpsList();
            refuseNonStringReads(k, branch);
            long now = System.currentTimeMillis();
            for (RequestOp op : branch) {
                out.addResponses(apply(k, op, now));
            }
            return out;
        });
        return new Done<>(d.value().setHeader(store.header()).build(), d.logPosition());
    }

    private static Access max(Access a, Access b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    /** Validates the ops and adds their keys; returns what they may do. */
    private Access validate(List<RequestOp> ops, List<byte[]> keys) {
        Access access = Access.READ;
        for (RequestOp op : ops) {
            switch (op.getRequestCase()) {
                case GET -> keys.add(KvStore.key(op.getGet().getKey()));
                case PUT -> {
                    access = Access.GROW;
                    keys.add(KvStore.key(op.getPut().getKey()));
                    store.value(op.getPut().getValue());
                    KvStore.expireAt(op.getPut().getTtlMs(), System.currentTimeMillis());
                }
                case DELETE -> {
                    keys.add(KvStore.key(op.getDelete().getKey()));
                    if (op.getDelete().hasExpectedVersion()) {
                        throw invalid("expected_version is not allowed in a Txn op: use a Compare");
                    }
                    access = max(access, Access.WRITE);
                }
                default -> throw invalid("empty RequestOp");
            }
        }
        return access;
    }

    /**
     * A get of a key holding another Redis type fails the Txn with FAILED_PRECONDITION (WRONGTYPE)
     * before any op runs, so a Txn never stops half done.
     */
    private void refuseNonStringReads(Locked k, List<RequestOp> ops) {
        for (RequestOp op : ops) {
            if (op.getRequestCase() == RequestOp.RequestCase.GET) {
                Object value = k.value(op.getGet().getKey().toByteArray());
                if (value != null) {
                    KvStore.string(value);
                }
            }
        }
    }

    private boolean holds(Locked k, Compare c) {
        byte[] key = c.getKey().toByteArray();
        Object value = k.value(key);
        int cmp;
        switch (c.getTarget()) {
            case VERSION -> cmp = Long.compare(store.versions().versionOf(key, value), c.getVersion());
            case VALUE -> {
                if (value == null) {
                    return false;
                }
                cmp = Arrays.compareUnsigned(KvStore.string(value), c.getValue().toByteArray());
            }
            case EXISTS -> cmp = (value != null) == c.getExists() ? 0 : 1;
            default -> throw invalid("unknown compare target");
        }
        return switch (c.getResult()) {
            case EQUAL -> cmp == 0;
            case NOT_EQUAL -> cmp != 0;
            case GREATER -> cmp > 0;
            case LESS -> cmp < 0;
            default -> throw invalid("unknown compare result");
        };
    }

    private ResponseOp apply(Locked k, RequestOp op, long now) {
        ResponseOp.Builder b = ResponseOp.newBuilder();
        switch (op.getRequestCase()) {
            case GET -> {
                KeyValue kv = store.readLocked(k, op.getGet().getKey().toByteArray(), true);
                GetResponse.Builder g = GetResponse.newBuilder();
                if (kv != null) {
                    g.setKv(kv);
                }
                b.setGet(g);
            }
            case PUT -> {
                var p = op.getPut();
                PutResponse.Builder pr = PutResponse.newBuilder();
                store.putLocked(k, p.getKey().toByteArray(), p.getValue().toByteArray(),
                        KvStore.expireAt(p.getTtlMs(), now), pr);
                b.setPut(pr);
            }
            case DELETE -> {
                long v = store.deleteLocked(k, op.getDelete().getKey().toByteArray(), false, 0, false);
                b.setDelete(DeleteResponse.newBuilder().setVersion(v));
            }
            default -> throw invalid("empty RequestOp");
        }
        return b.build();
    }

    private static io.grpc.StatusRuntimeException invalid(String message) {
        return Failure.of(Status.INVALID_ARGUMENT.withDescription(message));
    }
}
