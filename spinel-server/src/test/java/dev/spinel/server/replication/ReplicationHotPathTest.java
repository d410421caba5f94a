package dev.spinel.server.replication;

import com.sun.management.ThreadMXBean;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What propagation costs a write on the master: the stream's append copies the already-encoded frame into
 * the backlog ring and allocates nothing (a SELECT only when the database changes). Counted with the JVM's
 * per-thread allocation counter, not timed.
 */
class ReplicationHotPathTest {
    @Test
    void appendingToTheStreamAllocatesNothing() {
        ThreadMXBean mx = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        ReplicationStream stream = new ReplicationStream(1 << 20, 0);
        byte[] frame = "*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n".getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < 20_000; i++) { // warm-up (and the first SELECT)
            stream.append(0, frame, 0, frame.length);
        }
        long before = mx.getCurrentThreadAllocatedBytes();
        int n = 200_000;
        for (int i = 0; i < n; i++) {
            stream.append(0, frame, 0, frame.length);
        }
        long allocated = mx.getCurrentThreadAllocatedBytes() - before;
        assertTrue(allocated < 4096, allocated + " bytes allocated for " + n + " appends");
        assertEquals(20_000L * frame.length + 23 + (long) n * frame.length, stream.offset()); // 23: SELECT 0
    }
}
