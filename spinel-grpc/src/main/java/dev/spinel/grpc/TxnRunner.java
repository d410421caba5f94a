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
import dev.spinel.store.Entry;
import dev.spinel.store.KeyHash;
import dev.spinel.store.Segment;
import dev.spinel.store.StripeLocks;
import io.grpc.Status;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Txn (etcd's model): every compare is evaluated and the chosen branch of ops is run with the stripes
 * of all keys involved locked in the global order, so the whole Txn is atomic against RESP commands and
 * other RPCs. All requests are validated before any lock is taken; an invalid Txn changes nothing.
 *
 * <p>Thread-safety: stateless; one call per Txn, any thread.
 */
final class TxnRunner {
    static final int MAX_KEYS = 128;

    private final KvStore store;

    TxnRunner(KvStore store) {
        this.store = store;
    }

    TxnResponse run(TxnRequest r) {
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
        validate(r.getSuccessOpsList(), keys);
        validate(r.getFailureOpsList(), keys);
        if (keys.size() > MAX_KEYS) {
            throw invalid("at most " + MAX_KEYS + " keys per Txn");
        }
        StripeLocks locks = new StripeLocks();
        for (byte[] k : keys) {
            locks.add(store.db(), k, 0, k.length);
        }
        TxnResponse.Builder out = TxnResponse.newBuilder();
        List<byte[]> written = new ArrayList<>();
        List<Boolean> withTtl = new ArrayList<>();
        List<byte[]> deleted = new ArrayList<>();
        locks.lock();
        try {
            long now = System.currentTimeMillis();
            boolean ok = true;
            for (Compare c : r.getComparesList()) {
                if (!holds(c, now)) {
                    ok = false;
                    break;
                }
            }
            out.setSucceeded(ok);
            List<RequestOp> branch = ok ? r.getSuccessOpsList() : r.getFailureOpsList();
            refuseNonStringReads(branch, now);
            for (RequestOp op : branch) {
                out.addResponses(apply(op, now, written, withTtl, deleted));
            }
        } finally {
            locks.unlock();
        }
        for (int i = 0; i < written.size(); i++) {
            store.written(written.get(i), withTtl.get(i));
        }
        for (byte[] k : deleted) {
            store.deleted(k);
        }
        return out.setHeader(store.header()).build();
    }

    private void validate(List<RequestOp> ops, List<byte[]> keys) {
        for (RequestOp op : ops) {
            switch (op.getRequestCase()) {
                case GET -> keys.add(KvStore.key(op.getGet().getKey()));
                case PUT -> {
                    keys.add(KvStore.key(op.getPut().getKey()));
                    store.value(op.getPut().getValue());
                    KvStore.expireAt(op.getPut().getTtlMs(), System.currentTimeMillis());
                }
                case DELETE -> {
                    keys.add(KvStore.key(op.getDelete().getKey()));
                    if (op.getDelete().hasExpectedVersion()) {
                        throw invalid("expected_version is not allowed in a Txn op: use a Compare");
                    }
                }
                default -> throw invalid("empty RequestOp");
            }
        }
    }

    /**
     * A get of a key holding another Redis type fails the Txn with FAILED_PRECONDITION (WRONGTYPE)
     * before any op runs, so a Txn never stops half done.
     */
    private void refuseNonStringReads(List<RequestOp> ops, long now) {
        for (RequestOp op : ops) {
            if (op.getRequestCase() == RequestOp.RequestCase.GET) {
                byte[] key = op.getGet().getKey().toByteArray();
                int h = KeyHash.hash(key);
                Entry e = store.db().segment(h).get(key, 0, key.length, h, now);
                if (e != null) {
                    KvStore.string(e);
                }
            }
        }
    }

    private boolean holds(Compare c, long now) {
        byte[] key = c.getKey().toByteArray();
        int h = KeyHash.hash(key);
        Segment seg = store.db().segment(h);
        Entry e = seg.get(key, 0, key.length, h, now);
        int cmp;
        switch (c.getTarget()) {
            case VERSION -> cmp = Long.compare(store.versions().versionOf(key, e == null ? null : e.value()), c.getVersion());
            case VALUE -> {
                if (e == null) {
                    return false;
                }
                cmp = Arrays.compareUnsigned(KvStore.string(e), c.getValue().toByteArray());
            }
            case EXISTS -> cmp = (e != null) == c.getExists() ? 0 : 1;
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

    private ResponseOp apply(RequestOp op, long now, List<byte[]> written, List<Boolean> withTtl, List<byte[]> deleted) {
        ResponseOp.Builder b = ResponseOp.newBuilder();
        switch (op.getRequestCase()) {
            case GET -> {
                byte[] key = op.getGet().getKey().toByteArray();
                int h = KeyHash.hash(key);
                KeyValue kv = store.readLocked(key, h, store.db().segment(h), true, now);
                GetResponse.Builder g = GetResponse.newBuilder();
                if (kv != null) {
                    g.setKv(kv);
                }
                b.setGet(g);
            }
            case PUT -> {
                var p = op.getPut();
                byte[] key = p.getKey().toByteArray();
                int h = KeyHash.hash(key);
                long expireAt = KvStore.expireAt(p.getTtlMs(), now);
                PutResponse.Builder pr = PutResponse.newBuilder();
                store.putLocked(key, h, store.db().segment(h), p.getValue().toByteArray(), expireAt, now, pr);
                written.add(key);
                withTtl.add(expireAt >= 0);
                b.setPut(pr);
            }
            case DELETE -> {
                byte[] key = op.getDelete().getKey().toByteArray();
                int h = KeyHash.hash(key);
                long v = store.deleteLocked(key, h, store.db().segment(h), false, 0, false);
                if (v != 0) {
                    deleted.add(key);
                }
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
