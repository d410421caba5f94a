package dev.spinel.grpc;

import com.google.protobuf.ByteString;
import dev.spinel.grpc.v1.BatchOp;
import dev.spinel.grpc.v1.BatchRequest;
import dev.spinel.grpc.v1.BatchResponse;
import dev.spinel.grpc.v1.GetRequest;
import dev.spinel.grpc.v1.KVGrpc;
import dev.spinel.grpc.v1.PutRequest;
import dev.spinel.grpc.v1.RequestOp;
import dev.spinel.grpc.v1.TxnRequest;
import io.grpc.CallOptions;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.Arrays;
import java.util.Iterator;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static dev.spinel.grpc.Ops.get;
import static dev.spinel.grpc.Ops.op;
import static dev.spinel.grpc.Ops.put;
import static dev.spinel.grpc.Ops.putOp;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Malformed and oversized requests get a clear status, and the service keeps answering other clients: random
 * bytes as a request, a message over grpc-max-message-size, a key near it, an empty BatchOp, a Txn of 10,000
 * ops, and a Batch message of 10,000 ops.
 */
class GrpcRobustnessTest {
    private static final MethodDescriptor.Marshaller<byte[]> RAW = RawBytes.MARSHALLER;

    private static Status.Code code(Runnable call) {
        return assertThrows(StatusRuntimeException.class, call::run).getStatus().getCode();
    }

    /** Another client's Put and Get still work: nothing above hurt the service. */
    private static void stillServes(KVGrpc.KVBlockingStub kv, String step) {
        kv.put(put("probe", step));
        assertEquals(step, kv.get(get("probe")).getKv().getValue().toStringUtf8(), step);
    }

    @Test
    @Timeout(120)
    void badRequestsGetAClearStatusAndHurtNoOtherClient() throws Exception {
        try (GrpcTestServer s = new GrpcTestServer("grpc-max-message-size", "1mb")) {
            KVGrpc.KVBlockingStub kv = s.blocking();
            stillServes(kv, "start");

            MethodDescriptor<byte[], byte[]> rawPut = KVGrpc.getPutMethod().toBuilder(RAW, RAW).build();
            ThreadLocalRandom rnd = ThreadLocalRandom.current();
            boolean malformed = false;
            for (int i = 0; i < 50; i++) {
                byte[] junk = new byte[rnd.nextInt(1, 200)];
                rnd.nextBytes(junk);
                try {
                    ClientCalls.blockingUnaryCall(s.channel, rawPut, CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), junk);
                } catch (StatusRuntimeException e) {
                    // Junk that parses as a request is an ordinary call; junk that does not is INVALID_ARGUMENT too
                    // (grpc-java alone answered UNKNOWN "Application error processing RPC" and logged a stack trace)
                    assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode(), e.getStatus() + " for " + Arrays.toString(junk));
                    malformed |= e.getStatus().getDescription().startsWith("malformed request");
                }
            }
            assertTrue(malformed, "some junk did not parse");
            stillServes(kv, "after junk");
            // a Batch stream with a malformed message ends with INVALID_ARGUMENT
            MethodDescriptor<byte[], byte[]> rawBatch = KVGrpc.getBatchMethod().toBuilder(RAW, RAW).build();
            Iterator<byte[]> replies = ClientCalls.blockingServerStreamingCall(s.channel, rawBatch,
                    CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff});
            assertEquals(Status.Code.INVALID_ARGUMENT, code(replies::next));
            stillServes(kv, "after a malformed Batch");

            byte[] big = new byte[2 << 20];
            assertEquals(Status.Code.RESOURCE_EXHAUSTED,
                    code(() -> kv.put(PutRequest.newBuilder().setKey(ByteString.copyFrom(big)).build())), "over the message size");
            byte[] nearLimit = new byte[(1 << 20) - 1024];
            Arrays.fill(nearLimit, (byte) 'k');
            kv.put(PutRequest.newBuilder().setKey(ByteString.copyFrom(nearLimit)).setValue(ByteString.copyFromUtf8("v")).build());
            assertEquals("v", kv.get(GetRequest.newBuilder().setKey(ByteString.copyFrom(nearLimit)).build())
                    .getKv().getValue().toStringUtf8(), "a key of ~1 MB is a key");
            stillServes(kv, "after big");

            BatchResponse empty = Ops.batch(s.async(), BatchOp.getDefaultInstance(), op(put("afterEmpty", "1")));
            assertEquals(Status.Code.INVALID_ARGUMENT.value(), empty.getResults(0).getCode());
            assertEquals("empty BatchOp", empty.getResults(0).getMessage());
            assertEquals(0, empty.getResults(1).getCode(), "the ops after it run");

            TxnRequest.Builder deep = TxnRequest.newBuilder();
            for (int i = 0; i < 10_000; i++) {
                deep.addSuccessOps(putOp(put("deep" + i, "x")));
            }
            StatusRuntimeException e = assertThrows(StatusRuntimeException.class, () -> kv.txn(deep.build()));
            assertEquals(Status.Code.INVALID_ARGUMENT, e.getStatus().getCode());
            assertEquals("at most " + TxnRunner.MAX_KEYS + " keys per Txn", e.getStatus().getDescription());
            assertEquals(Status.Code.NOT_FOUND, code(() -> kv.get(get("deep0"))), "a refused Txn wrote nothing");
            assertEquals(Status.Code.INVALID_ARGUMENT, code(() -> kv.txn(TxnRequest.newBuilder()
                    .addSuccessOps(RequestOp.getDefaultInstance()).build())));

            BatchRequest.Builder many = BatchRequest.newBuilder();
            for (int i = 0; i < 10_000; i++) {
                many.addOps(op(put("m" + i, Integer.toString(i))));
            }
            BatchOp[] ops = many.getOpsList().toArray(new BatchOp[0]);
            BatchResponse r = Ops.batch(s.async(), ops);
            assertEquals(10_000, r.getResultsCount());
            for (int i = 0; i < 10_000; i++) {
                assertEquals(0, r.getResults(i).getCode());
            }
            assertEquals("9999", kv.get(get("m9999")).getKv().getValue().toStringUtf8());
            stillServes(kv, "end");
        }
    }
}
