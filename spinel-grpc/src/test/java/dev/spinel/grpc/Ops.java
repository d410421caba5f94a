package dev.spinel.grpc;

import com.google.protobuf.ByteString;
import dev.spinel.grpc.v1.BatchOp;
import dev.spinel.grpc.v1.BatchRequest;
import dev.spinel.grpc.v1.BatchResponse;
import dev.spinel.grpc.v1.Compare;
import dev.spinel.grpc.v1.CreateRequest;
import dev.spinel.grpc.v1.DeleteRequest;
import dev.spinel.grpc.v1.GetRequest;
import dev.spinel.grpc.v1.KVGrpc;
import dev.spinel.grpc.v1.PutRequest;
import dev.spinel.grpc.v1.RequestOp;
import dev.spinel.grpc.v1.TxnRequest;
import dev.spinel.grpc.v1.UpdateRequest;
import io.grpc.stub.StreamObserver;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** Request builders and a one-message Batch call, shared by the write-path tests. */
final class Ops {
    private Ops() {
    }

    static ByteString b(String s) {
        return ByteString.copyFromUtf8(s);
    }

    static PutRequest put(String key, String value) {
        return put(key, value, 0);
    }

    static PutRequest put(String key, String value, long ttlMs) {
        return PutRequest.newBuilder().setKey(b(key)).setValue(b(value)).setTtlMs(ttlMs).build();
    }

    static CreateRequest create(String key, String value) {
        return CreateRequest.newBuilder().setKey(b(key)).setValue(b(value)).build();
    }

    static UpdateRequest update(String key, String value) {
        return UpdateRequest.newBuilder().setKey(b(key)).setValue(b(value)).build();
    }

    static DeleteRequest delete(String key) {
        return DeleteRequest.newBuilder().setKey(b(key)).build();
    }

    static GetRequest get(String key) {
        return GetRequest.newBuilder().setKey(b(key)).build();
    }

    static Compare exists(String key) {
        return Compare.newBuilder().setKey(b(key)).setTarget(Compare.Target.EXISTS).setResult(Compare.Result.EQUAL)
                .setExists(true).build();
    }

    static RequestOp putOp(PutRequest p) {
        return RequestOp.newBuilder().setPut(p).build();
    }

    static RequestOp deleteOp(String key) {
        return RequestOp.newBuilder().setDelete(delete(key)).build();
    }

    static TxnRequest txn(Compare c, RequestOp... success) {
        return TxnRequest.newBuilder().addCompares(c).addAllSuccessOps(List.of(success)).build();
    }

    static BatchOp op(PutRequest p) {
        return BatchOp.newBuilder().setPut(p).build();
    }

    static BatchOp op(DeleteRequest d) {
        return BatchOp.newBuilder().setDelete(d).build();
    }

    /** Sends one Batch message on a new stream and returns its reply. */
    static BatchResponse batch(KVGrpc.KVStub stub, BatchOp... ops) throws Exception {
        CompletableFuture<List<BatchResponse>> done = new CompletableFuture<>();
        List<BatchResponse> got = new ArrayList<>();
        StreamObserver<BatchRequest> in = stub.batch(new StreamObserver<>() {
            @Override
            public void onNext(BatchResponse r) {
                got.add(r);
            }

            @Override
            public void onError(Throwable t) {
                done.completeExceptionally(t);
            }

            @Override
            public void onCompleted() {
                done.complete(got);
            }
        });
        in.onNext(BatchRequest.newBuilder().addAllOps(List.of(ops)).build());
        in.onCompleted();
        List<BatchResponse> replies = done.get(10, TimeUnit.SECONDS);
        if (replies.size() != 1) {
            throw new AssertionError("one reply per message: " + replies);
        }
        return replies.get(0);
    }
}
