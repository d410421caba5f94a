package dev.spinel.server.testing;

import com.sun.management.ThreadMXBean;
import dev.spinel.protocol.Args;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.engine.Session;

import java.lang.management.ManagementFactory;

/**
 * Bytes the calling thread allocates per command run through the engine without the network: the hot-path
 * tests' measure (allocation is counted, never timed).
 */
public final class Allocations {
    private static final ThreadMXBean MX = (ThreadMXBean) ManagementFactory.getThreadMXBean();

    private Allocations() {
    }

    /** Runs {@code args} {@code n} times on {@code session} (its replies cleared now and then); bytes per call. */
    public static long perCall(Engine engine, Session session, Args args, int n) {
        long before = MX.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < n; i++) {
            engine.execute(session, args);
            if (i % 1000 == 0) {
                session.out().clear();
            }
        }
        return (MX.getCurrentThreadAllocatedBytes() - before) / n;
    }
}
