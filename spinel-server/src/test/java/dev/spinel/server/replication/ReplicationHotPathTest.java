package dev.spinel.server.replication;

import com.sun.management.ThreadMXBean;
import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.engine.clock.CommandChain;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What propagation costs a write on the master: the stream's append copies the already-encoded frame into
 * the backlog ring and allocates nothing (a SELECT only when the database changes); a pipeline of SETs served
 * with a replica attached allocates on the event loops little more than without one. Counted with the JVM's
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

    @Test
    void aReplicaAttachedAddsLittleAllocationPerWrite() throws Exception {
        try (SpinelServer master = SpinelServer.start(ServerConfig.defaults().with("port", "0")
                .with("repl-diskless-sync", "no"));
             Socket client = new Socket("127.0.0.1", master.port())) {
            client.setSoTimeout(20_000);
            client.setTcpNoDelay(true);
            int n = 200_000;
            pipeline(client, 50_000, 0); // warm-up
            long alone = pipeline(client, n, 1) / n;
            try (Socket replica = new Socket("127.0.0.1", master.port())) {
                replica.setSoTimeout(20_000);
                attach(replica);
                Thread drain = Thread.ofPlatform().daemon().start(() -> {
                    byte[] b = new byte[64 * 1024];
                    try {
                        InputStream in = replica.getInputStream();
                        while (in.read(b) >= 0) {
                            // the stream is read and dropped: this test counts the master's side
                        }
                    } catch (IOException ignored) {
                        // closed at the end
                    }
                });
                pipeline(client, 50_000, 2); // warm-up, the stream included
                long withReplica = pipeline(client, n, 3) / n;
                System.out.println("master, bytes allocated on the loops per SET: " + alone + " alone, "
                        + withReplica + " with a replica");
                // before: +30 (an int[] of the key positions per write, to lock its stripe while it is logged)
                assertTrue(withReplica - alone < 20, withReplica + " bytes per SET with a replica, " + alone + " without");
                replica.close();
                drain.join(5000);
            }
        }
    }

    /** Sends {@code n} SETs over 1000 keys in one pipeline and reads their replies; the loops' allocation for them. */
    private static long pipeline(Socket c, int n, int round) throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream(n * 48);
        for (int i = 0; i < n; i++) {
            b.writeBytes(ReplicationApplyCostTest.frame("SET", "key:" + (i % 1000), String.format("value-%d-%08d", round, i % 1000)));
        }
        byte[] req = b.toByteArray();
        long before = loopsAllocated();
        Thread writer = Thread.ofPlatform().daemon().start(() -> {
            try {
                c.getOutputStream().write(req);
                c.getOutputStream().flush();
            } catch (IOException e) {
                throw new RuntimeException(e);
            }
        });
        byte[] replies = new DataInputStream(c.getInputStream()).readNBytes(5 * n);
        writer.join();
        long allocated = loopsAllocated() - before;
        assertEquals("+OK\r\n".repeat(n), new String(replies, StandardCharsets.US_ASCII));
        return allocated;
    }

    private static long loopsAllocated() {
        ThreadMXBean mx = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        long sum = 0;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t instanceof CommandChain.Owner) { // the RESP front end's event loops
                sum += mx.getThreadAllocatedBytes(t.threadId());
            }
        }
        return sum;
    }

    /** PSYNC as a replica and read up to the end of the full resync's RDB; the stream follows. */
    private static void attach(Socket s) throws Exception {
        s.getOutputStream().write(ReplicationApplyCostTest.frame("PSYNC", "?", "-1"));
        s.getOutputStream().flush();
        InputStream in = s.getInputStream();
        String full = line(in);
        assertTrue(full.startsWith("+FULLRESYNC"), full);
        String len;
        do {
            len = line(in);
        } while (len.isEmpty());
        assertTrue(len.startsWith("$"), len);
        in.readNBytes(Integer.parseInt(len.substring(1)));
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        int c;
        while ((c = in.read()) != '\n') {
            if (c < 0) {
                throw new IOException("closed");
            }
            if (c != '\r') {
                sb.append((char) c);
            }
        }
        return sb.toString();
    }
}
