package dev.spinel.store.types;

import java.util.Arrays;
import java.util.Random;

import static dev.spinel.store.types.HyperLogLog.DENSE;
import static dev.spinel.store.types.HyperLogLog.DENSE_SIZE;
import static dev.spinel.store.types.HyperLogLog.HDR;
import static dev.spinel.store.types.HyperLogLog.REGISTERS;
import static dev.spinel.store.types.HyperLogLog.SPARSE;

/**
 * PFSELFTEST, as Redis runs it: the dense register accessors keep random values without touching their
 * neighbours; then up to 10 million distinct elements go into a dense and a sparse value at once, and at
 * every power of ten the two estimates must agree, the sparse one must still be sparse while small, and
 * the error must stay within six standard errors.
 *
 * <p>Stateless; each run works on values of its own.
 */
public final class HllSelfTest {
    private HllSelfTest() {
    }

    /** Runs the test; {@code null} on success, else the error reply. */
    public static String run(long sparseMaxBytes) {
        Random rnd = new Random();
        byte[] dense = new byte[DENSE_SIZE];
        dense[4] = DENSE;
        int[] expected = new int[REGISTERS];
        for (int cycle = 0; cycle < 1000; cycle++) {
            for (int i = 0; i < REGISTERS; i++) {
                expected[i] = rnd.nextInt(64);
                HyperLogLog.denseSet(dense, i, expected[i]);
            }
            for (int i = 0; i < REGISTERS; i++) {
                int v = HyperLogLog.denseGet(dense, i);
                if (v != expected[i]) {
                    return "TESTFAILED Register " + i + " should be " + expected[i] + " but is " + v;
                }
            }
        }
        Arrays.fill(dense, HDR, DENSE_SIZE, (byte) 0);
        HyperLogLog d = new HyperLogLog(dense, DENSE_SIZE, true);
        HyperLogLog sparse = HyperLogLog.create();
        double relerr = 1.04 / Math.sqrt(REGISTERS);
        long checkpoint = 1;
        long seed = rnd.nextLong();
        byte[] ele = new byte[8];
        for (long j = 1; j <= 10_000_000; j++) {
            long x = j ^ seed;
            for (int b = 0; b < 8; b++) {
                ele[b] = (byte) (x >>> (8 * b));
            }
            d.add(ele, 0, 8, sparseMaxBytes);
            sparse.add(ele, 0, 8, sparseMaxBytes);
            if (j != checkpoint) {
                continue;
            }
            if (j < sparseMaxBytes / 2 && sparse.encoding() != SPARSE) {
                return "TESTFAILED sparse encoding not used";
            }
            long card = d.count();
            if (card != sparse.count()) {
                return "TESTFAILED dense/sparse disagree";
            }
            long maxerr = j == 10 ? 1 : (long) Math.ceil(relerr * 6 * checkpoint);
            long abserr = Math.abs(checkpoint - card);
            if (abserr > maxerr) {
                return "TESTFAILED Too big error. card:" + checkpoint + " abserr:" + abserr;
            }
            checkpoint *= 10;
        }
        return null;
    }
}
