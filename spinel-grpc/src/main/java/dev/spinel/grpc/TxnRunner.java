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
        // One clock read: a put's TTL is checked and applied with the same time, so no check fails once ops ran.
        long now = System.currentTimeMillis();
        List<byte[]> keys = new ArrayList<>();
        List<Access> needs = new ArrayList<>(); // per entry of keys: the permission it needs
        for (Compare c : r.getComparesList()) {
            keys.add(KvStore.key(c.getKey()));
            needs.add(Access.READ);
            if (c.getTarget() == Compare.Target.EXISTS && c.getResult() != Compare.Result.EQUAL
                    && c.getResult() != Compare.Result.NOT_EQUAL) {
                throw invalid("an EXISTS compare takes EQUAL or NOT_EQUAL");
            }
            if (c.getTarget() == Compare.Target.UNRECOGNIZED || c.getResult() == Compare.Result.UNRECOGNIZED) {
                throw invalid("unknown compare target or result");
            }
        }
        long[] successExpiry = new long[r.getSuccessOpsCount()];
        long[] failureExpiry = new long[r.getFailureOpsCount()];
        Access access = Access.READ;
        access = max(access, validate(r.getSuccessOpsList(), keys, needs, successExpiry, now));
        access = max(access, validate(r.getFailureOpsList(), keys, needs, failureExpiry, now));
        if (keys.size() > MAX_KEYS) {
            throw invalid("at most " + MAX_KEYS + " keys per Txn");
        }
        // Each compare and op as the Redis command it amounts to (GET, SET, DEL), on both branches, as MULTI
        // checks each queued command: a compare needs only read permission on its key, a put only write.
        for (int i = 0; i < keys.size(); i++) {
            store.authorize(keys.get(i), needs.get(i));
        }
        TxnResponse.Builder out = TxnResponse.newBuilder();
        Done<TxnResponse.Builder> d = store.runAuthorized(keys, access, k -> {
            boolean ok = true;
            for (Compare c : r.getComparesList()) {
                if (!holds(k, c)) {
                    ok = false;
                    break;
                }
            }
            out.setSucceeded(ok);
            List<RequestOp> branch = ok ? r.getSuccessOpsList() : r.getFailureOpsList();
            long[] expiry = ok ? successExpiry : failureExpiry;
            refuseNonStringReads(k, branch);
            for (int i = 0; i < branch.size(); i++) {
                out.addResponses(apply(k, branch.get(i), expiry[i]));
            }
            return out;
        });
        return new Done<>(d.value().setHeader(store.header()).build(), d.logPosition());
    }

    private static Access max(Access a, Access b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    /**
     * Validates the ops, adds their keys with the permission each needs, and puts each put's absolute expiry
     * (-1: none) in {@code expiry}; returns what the ops may do.
     */
    private Access validate(List<RequestOp> ops, List<byte[]> keys, List<Access> needs, long[] expiry, long now) {
        Access access = Access.READ;
        for (int i = 0; i < ops.size(); i++) {
            RequestOp op = ops.get(i);
            switch (op.getRequestCase()) {
                case GET -> {
                    keys.add(KvStore.key(op.getGet().getKey()));
                    needs.add(Access.READ);
                }
                case PUT -> {
                    access = Access.GROW;
                    keys.add(KvStore.key(op.getPut().getKey()));
                    needs.add(Access.GROW);
                    store.value(op.getPut().getValue());
                    expiry[i] = KvStore.expireAt(op.getPut().getTtlMs(), now);
                }
                case DELETE -> {
                    keys.add(KvStore.key(op.getDelete().getKey()));
                    needs.add(Access.WRITE);
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
            case VERSION -> cmp = Long.compare(store.versions().versionOf(key, k.identity(key)), c.getVersion());
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

    private ResponseOp apply(Locked k, RequestOp op, long expireAt) {
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
                store.putLocked(k, p.getKey().toByteArray(), p.getValue().toByteArray(), expireAt, pr);
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
