package dev.spinel.grpc;

import dev.spinel.grpc.v1.BatchOp;
import dev.spinel.grpc.v1.BatchRequest;
import dev.spinel.grpc.v1.BatchResponse;
import dev.spinel.grpc.v1.BatchResult;
import dev.spinel.grpc.v1.CreateRequest;
import dev.spinel.grpc.v1.CreateResponse;
import dev.spinel.grpc.v1.DeleteRequest;
import dev.spinel.grpc.v1.DeleteResponse;
import dev.spinel.grpc.v1.GetRequest;
import dev.spinel.grpc.v1.GetResponse;
import dev.spinel.grpc.v1.KVGrpc;
import dev.spinel.grpc.v1.PutRequest;
import dev.spinel.grpc.v1.PutResponse;
import dev.spinel.grpc.v1.ScanRequest;
import dev.spinel.grpc.v1.ScanResponse;
import dev.spinel.grpc.v1.TxnRequest;
import dev.spinel.grpc.v1.TxnResponse;
import dev.spinel.grpc.v1.UpdateRequest;
import dev.spinel.grpc.v1.UpdateResponse;
import dev.spinel.grpc.v1.WatchRequest;
import dev.spinel.grpc.v1.WatchResponse;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.netty.channel.EventLoopGroup;

import java.util.function.Function;

/**
 * {@code spinel.kv.v1.KV}: maps each RPC to a {@link KvStore} operation and its errors to statuses.
 * Runs on the transport's event loops (the server uses a direct executor): every operation is a short
 * critical section under stripe locks, never a wait for I/O. A call whose deadline has already passed
 * when it is reached fails with DEADLINE_EXCEEDED without touching the store.
 *
 * <p>Thread-safety: thread-safe; one instance serves every call.
 */
final class KvService extends KVGrpc.KVImplBase {
    private final KvStore store;
    private final TxnRunner txn;
    private final EventLoopGroup loops;

    KvService(KvStore store, EventLoopGroup loops) {
        this.store = store;
        this.txn = new TxnRunner(store);
        this.loops = loops;
    }

    @Override
    public void create(CreateRequest r, StreamObserver<CreateResponse> out) {
        unary(r, store::create, out);
    }

    @Override
    public void get(GetRequest r, StreamObserver<GetResponse> out) {
        unary(r, store::get, out);
    }

    @Override
    public void update(UpdateRequest r, StreamObserver<UpdateResponse> out) {
        unary(r, store::update, out);
    }

    @Override
    public void delete(DeleteRequest r, StreamObserver<DeleteResponse> out) {
        unary(r, store::delete, out);
    }

    @Override
    public void put(PutRequest r, StreamObserver<PutResponse> out) {
        unary(r, store::put, out);
    }

    @Override
    public void txn(TxnRequest r, StreamObserver<TxnResponse> out) {
        unary(r, txn::run, out);
    }

    private static <Q, R> void unary(Q request, Function<Q, R> op, StreamObserver<R> out) {
        StatusRuntimeException late = expired();
        if (late != null) {
            out.onError(late);
            return;
        }
        R reply;
        try {
            reply = op.apply(request);
        } catch (StatusRuntimeException e) {
            out.onError(e);
            return;
        }
        out.onNext(reply);
        out.onCompleted();
    }

    /** DEADLINE_EXCEEDED / CANCELLED when the call is already over, else null. */
    static StatusRuntimeException expired() {
        Context ctx = Context.current();
        Deadline d = ctx.getDeadline();
        if (d != null && d.isExpired()) {
            return Failure.of(Status.DEADLINE_EXCEEDED.withDescription("deadline passed before the call ran"));
        }
        if (ctx.isCancelled()) {
            return Failure.of(Status.CANCELLED.withDescription("call cancelled"));
        }
        return null;
    }

    @Override
    public void scan(ScanRequest r, StreamObserver<ScanResponse> out) {
        StatusRuntimeException late = expired();
        if (late != null) {
            out.onError(late);
            return;
        }
        ScanStream s;
        try {
            s = new ScanStream(store, r, (ServerCallStreamObserver<ScanResponse>) out);
        } catch (StatusRuntimeException e) {
            out.onError(e);
            return;
        }
        s.start();
    }

    @Override
    public void watch(WatchRequest r, StreamObserver<WatchResponse> out) {
        byte[] target;
        boolean prefix;
        switch (r.getTargetCase()) {
            case KEY -> {
                target = r.getKey().toByteArray();
                prefix = false;
            }
            case PREFIX -> {
                target = r.getPrefix().toByteArray();
                prefix = true;
            }
            default -> {
                out.onError(Failure.of(Status.INVALID_ARGUMENT.withDescription("set key or prefix")));
                return;
            }
        }
        if (!prefix && target.length == 0) {
            out.onError(Failure.of(Status.INVALID_ARGUMENT.withDescription("key must not be empty")));
            return;
        }
        var call = (ServerCallStreamObserver<WatchResponse>) out;
        Watcher w = new Watcher(target, prefix, store, call, loops.next());
        call.setOnCancelHandler(() -> {
            w.close();
            store.hub().remove(w);
        });
        call.setOnReadyHandler(w::schedule);
        store.hub().add(w);
        call.onNext(WatchResponse.newBuilder().setHeader(store.header()).setCreated(true).build());
    }

    /**
     * Batch: each request message is answered by one response message, in order. Inbound flow control
     * is manual: the next request is read only while the client keeps reading replies, so a client
     * that sends without reading cannot make the server buffer replies without bound.
     */
    @Override
    public StreamObserver<BatchRequest> batch(StreamObserver<BatchResponse> responses) {
        var out = (ServerCallStreamObserver<BatchResponse>) responses;
        out.disableAutoRequest();
        boolean[] waiting = {false};
        out.setOnReadyHandler(() -> {
            if (waiting[0] && out.isReady()) {
                waiting[0] = false;
                out.request(1);
            }
        });
        out.request(1);
        return new StreamObserver<>() {
            @Override
            public void onNext(BatchRequest req) {
                BatchResponse.Builder b = BatchResponse.newBuilder();
                for (BatchOp op : req.getOpsList()) {
                    b.addResults(one(op));
                }
                out.onNext(b.build());
                if (out.isReady()) {
                    out.request(1);
                } else {
                    waiting[0] = true;
                }
            }

            @Override
            public void onError(Throwable t) {
                // The client went away; nothing is pending on our side.
            }

            @Override
            public void onCompleted() {
                out.onCompleted();
            }
        };
    }

    private BatchResult one(BatchOp op) {
        BatchResult.Builder b = BatchResult.newBuilder();
        try {
            switch (op.getOpCase()) {
                case CREATE -> b.setCreate(store.create(op.getCreate()));
                case GET -> b.setGet(store.get(op.getGet()));
                case UPDATE -> b.setUpdate(store.update(op.getUpdate()));
                case DELETE -> b.setDelete(store.delete(op.getDelete()));
                case PUT -> b.setPut(store.put(op.getPut()));
                case TXN -> b.setTxn(txn.run(op.getTxn()));
                default -> throw Failure.of(Status.INVALID_ARGUMENT.withDescription("empty BatchOp"));
            }
        } catch (StatusRuntimeException e) {
            b.clear().setCode(e.getStatus().getCode().value());
            if (e.getStatus().getDescription() != null) {
                b.setMessage(e.getStatus().getDescription());
            }
        }
        return b.build();
    }
}
