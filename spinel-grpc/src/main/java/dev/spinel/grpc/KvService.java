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
import dev.spinel.server.engine.EmbeddedClient;
import dev.spinel.server.engine.EmbeddedClient.Done;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

/**
 * {@code spinel.kv.v1.KV}: maps each RPC to a {@link KvStore} operation and its errors to statuses.
 * Runs on the transport's event loops (the server uses a direct executor): every operation is a short
 * critical section under stripe locks, never a wait for I/O. A write's reply leaves only once the
 * append-only log acknowledges the write (fsynced under {@code appendfsync always}); the loop does not
 * wait for that, the reply is sent from a callback, as the RESP connection's replies are. A call whose deadline has already passed
 * when it is reached fails with DEADLINE_EXCEEDED without touching the store.
 *
 * <p>Thread-safety: thread-safe; one instance serves every call.
 */
final class KvService extends KVGrpc.KVImplBase {
    static final byte[] SCAN = {'S', 'C', 'A', 'N'};
    static final byte[] ZERO = {'0'};
    static final byte[] GET = {'G', 'E', 'T'};
    private final KvStore store;
    private final TxnRunner txn;
    private final BatchPuts puts;
    private final EventLoopGroup loops;
    /** The loops of {@link #loops}, to find the calling one without an iterator per call. */
    private final EventExecutor[] loopArray;

    KvService(KvStore store, EventLoopGroup loops) {
        this.store = store;
        this.txn = new TxnRunner(store);
        this.puts = new BatchPuts(store);
        this.loops = loops;
        List<EventExecutor> all = new ArrayList<>();
        loops.forEach(all::add);
        this.loopArray = all.toArray(new EventExecutor[0]);
    }

    @Override
    public void create(CreateRequest r, StreamObserver<CreateResponse> out) {
        unary(r, store::create, out);
    }

    @Override
    public void get(GetRequest r, StreamObserver<GetResponse> out) {
        unary(r, store::get, out); // CLIENT PAUSE ALL holds it (KvStore.runAuthorized throws Paused), as a write
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

    private <Q, R> void unary(Q request, Function<Q, Done<R>> op, StreamObserver<R> out) {
        StatusRuntimeException late = expired();
        if (late != null) {
            try {
                out.onError(late);
            } catch (RuntimeException alreadyClosed) {
                // a call cancelled while it waited for CLIENT PAUSE: its client has its status already
            }
            return;
        }
        Done<R> done;
        try {
            done = op.apply(request);
        } catch (StatusRuntimeException e) {
            out.onError(e);
            return;
        } catch (EmbeddedClient.Paused p) {
            // CLIENT PAUSE holds it, as a RESP client's write: it runs when the pause ends, or fails at its deadline
            whenUnpaused(() -> unary(request, op, out));
            return;
        }
        R reply = done.value();
        if (done.logPosition() == 0) {
            out.onNext(reply);
            out.onCompleted();
            return;
        }
        store.afterLogged(done.logPosition(), currentLoop(), () -> {
            out.onNext(reply);
            out.onCompleted();
        });
    }

    /**
     * Runs {@code retry} on this call's loop, in its gRPC context, once CLIENT PAUSE ends, or at once when the
     * call is cancelled or its deadline passes (the retry then finds it over and writes nothing).
     */
    private void whenUnpaused(Runnable retry) {
        Context ctx = Context.current();
        EventExecutor loop = currentLoop();
        AtomicBoolean once = new AtomicBoolean();
        Runnable fire = () -> {
            if (once.compareAndSet(false, true)) {
                loop.execute(ctx.wrap(retry));
            }
        };
        ctx.addListener(c -> fire.run(), loop);
        store.client().whenUnpaused(fire, loop);
    }

    /** The event loop running the call (its callbacks must come back to it), or any loop off them. */
    private EventExecutor currentLoop() {
        for (EventExecutor e : loopArray) {
            if (e.inEventLoop()) {
                return e;
            }
        }
        return loops.next();
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
        if (failIfOver(out)) {
            return;
        }
        ScanStream s;
        try {
            store.authorize(SCAN, ZERO); // each key it returns is then checked as GET would check it (ScanStream)
            s = new ScanStream(store, r, (ServerCallStreamObserver<ScanResponse>) out, this::whenUnpaused);
        } catch (StatusRuntimeException e) {
            out.onError(e);
            return;
        }
        if (store.client().readsHeld()) { // CLIENT PAUSE ALL: starts when it ends, or fails at its deadline
            whenUnpaused(() -> {
                if (!failIfOver(out)) {
                    s.start();
                }
            });
            return;
        }
        s.start();
    }

    /** Fails the call with its status when it is already over (deadline, cancelled); returns whether it was. */
    private static boolean failIfOver(StreamObserver<?> out) {
        StatusRuntimeException late = expired();
        if (late == null) {
            return false;
        }
        try {
            out.onError(late);
        } catch (RuntimeException alreadyClosed) {
            // cancelled while CLIENT PAUSE held it: its client has its status already
        }
        return true;
    }

    @Override
    public void watch(WatchRequest r, StreamObserver<WatchResponse> out) {
        if (failIfOver(out)) {
            return;
        }
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
        try {
            // A key's changes are its reads (GET). A prefix's are a scan (SCAN) and the reads of every key under
            // it, so the user's read patterns must cover the whole prefix (e.g. ~prefix* or broader).
            if (prefix) {
                store.authorize(SCAN, ZERO);
                store.authorizePrefix(target);
            } else {
                store.authorize(GET, target);
            }
        } catch (StatusRuntimeException e) {
            out.onError(e);
            return;
        }
        if (store.client().readsHeld()) { // CLIENT PAUSE ALL: registered when it ends, or failed at its deadline
            whenUnpaused(() -> watch(r, out));
            return;
        }
        var call = (ServerCallStreamObserver<WatchResponse>) out;
        Watcher w = new Watcher(target, prefix, store, call, loops.next(), KvStore.user());
        call.setOnCancelHandler(() -> {
            w.close();
            store.hub().remove(w);
        });
        call.setOnReadyHandler(w::schedule);
        store.hub().add(w);
        call.onNext(WatchResponse.newBuilder().setHeader(store.header()).setCreated(true).build());
    }

    /** Batch replies computed but not yet sent (waiting for the log) before the stream stops reading. */
    static final int BATCH_WINDOW = 64;

    /**
     * Batch: each request message is answered by one response message, in order, each sent once the
     * log acknowledges its writes. Inbound flow control is manual: the next request is read only while
     * the client keeps reading replies and fewer than {@link #BATCH_WINDOW} replies wait for the log, so
     * a client that sends without reading cannot make the server buffer replies without bound.
     */
    @Override
    public StreamObserver<BatchRequest> batch(StreamObserver<BatchResponse> responses) {
        var out = (ServerCallStreamObserver<BatchResponse>) responses;
        out.disableAutoRequest();
        BatchStream stream = new BatchStream(out, currentLoop());
        out.setOnReadyHandler(stream::onReady);
        out.request(1);
        return stream;
    }

    /**
     * One Batch stream's state, confined to the call's event loop (the handlers run on it and the log's
     * callbacks are sent back to it). Replies wait in a queue, in request order, for the log: acknowledging
     * a position acknowledges every earlier one, so the queue is sent from its head while the head's
     * position is acknowledged, whichever callback comes first. One callback object serves the stream.
     */
    private final class BatchStream implements StreamObserver<BatchRequest>, Runnable {
        private final ServerCallStreamObserver<BatchResponse> out;
        private final EventExecutor loop;
        private final ArrayDeque<BatchResponse> replies = new ArrayDeque<>(BATCH_WINDOW);
        private final long[] positions = new long[BATCH_WINDOW];
        /** The results of a run of Puts ({@link BatchPuts}), moved into the reply at once. */
        private final List<BatchResult> runResults = new ArrayList<>(BatchPuts.MAX_RUN);
        private int head;
        private boolean waiting;
        private boolean completed;
        private boolean closed;

        BatchStream(ServerCallStreamObserver<BatchResponse> out, EventExecutor loop) {
            this.out = out;
            this.loop = loop;
        }

        @Override
        public void onNext(BatchRequest req) {
            process(req, 0, BatchResponse.newBuilder(), 0);
        }

        /**
         * Runs the request's ops from {@code from} on. An op held by CLIENT PAUSE waits for its end with the
         * rest of the request, and the stream reads no further request meanwhile (order is kept).
         */
        private void process(BatchRequest req, int from, BatchResponse.Builder b, long position) {
            if (from > 0 && Context.current().isCancelled()) {
                return; // the client went away while a pause held the rest
            }
            BatchResult.Builder r = BatchResult.newBuilder();
            for (int i = from, n = req.getOpsCount(); i < n; ) {
                int end = BatchPuts.runEnd(req, i);
                try {
                    if (end - i > 1) { // a run of Puts: one unit (a single op keeps its own, logged bare)
                        position = Math.max(position, puts.apply(req, i, end, runResults));
                        b.addAllResults(runResults);
                        runResults.clear();
                        i = end;
                        continue;
                    }
                    position = Math.max(position, one(req.getOps(i), r));
                } catch (EmbeddedClient.Paused p) {
                    runResults.clear();
                    int at = i;
                    long before = position;
                    whenUnpaused(() -> process(req, at, b, before));
                    return;
                }
                b.addResults(r.build());
                r.clear();
                i++;
            }
            BatchResponse reply = b.build();
            if (replies.isEmpty() && store.client().acknowledged(position)) {
                out.onNext(reply); // nothing before it waits: no queue, no callback
            } else {
                positions[(head + replies.size()) % BATCH_WINDOW] = position;
                replies.add(reply);
                store.afterLogged(position, loop, this);
            }
            readMore();
        }

        /** A log callback (on the loop): sends the replies whose writes the log has acknowledged. */
        @Override
        public void run() {
            while (!replies.isEmpty() && store.client().acknowledged(positions[head])) {
                out.onNext(replies.poll());
                head = (head + 1) % BATCH_WINDOW;
            }
            if (replies.isEmpty() && completed) {
                close();
                return;
            }
            if (waiting) {
                readMore();
            }
        }

        void onReady() {
            if (waiting) {
                readMore();
            }
        }

        private void readMore() {
            if (!completed && replies.size() < BATCH_WINDOW && out.isReady()) {
                waiting = false;
                out.request(1);
            } else {
                waiting = true;
            }
        }

        @Override
        public void onError(Throwable t) {
            // The client went away; replies still waiting for the log are dropped by the transport.
        }

        @Override
        public void onCompleted() {
            completed = true;
            if (replies.isEmpty()) {
                close();
            }
        }

        private void close() {
            if (!closed) {
                closed = true;
                out.onCompleted();
            }
        }
    }

    /** One op of a Batch into {@code b}: returns the log position its reply waits for. */
    private long one(BatchOp op, BatchResult.Builder b) {
        try {
            switch (op.getOpCase()) {
                case CREATE -> {
                    Done<CreateResponse> d = store.create(op.getCreate());
                    b.setCreate(d.value());
                    return d.logPosition();
                }
                case GET -> {
                    b.setGet(store.get(op.getGet()).value());
                    return 0;
                }
                case UPDATE -> {
                    Done<UpdateResponse> d = store.update(op.getUpdate());
                    b.setUpdate(d.value());
                    return d.logPosition();
                }
                case DELETE -> {
                    Done<DeleteResponse> d = store.delete(op.getDelete());
                    b.setDelete(d.value());
                    return d.logPosition();
                }
                case PUT -> {
                    Done<PutResponse> d = store.put(op.getPut());
                    b.setPut(d.value());
                    return d.logPosition();
                }
                case TXN -> {
                    Done<TxnResponse> d = txn.run(op.getTxn());
                    b.setTxn(d.value());
                    return d.logPosition();
                }
                default -> throw Failure.of(Status.INVALID_ARGUMENT.withDescription("empty BatchOp"));
            }
        } catch (StatusRuntimeException e) {
            b.clear().mergeFrom(BatchPuts.failure(e));
            return 0;
        }
    }
}
