package dev.spinel.server.replication;

import com.sun.management.ThreadMXBean;
import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static dev.spinel.server.replication.ReplicationTest.info;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What applying the master's stream costs a replica, counted (not timed): the bytes its applying thread
 * allocates per command, for a stream of SETs over a fixed set of keys (so the dataset stops growing), played
 * by this test as a master. Applying a command keeps its new value (one array) and should allocate little
 * else: the stream is parsed in place, as the RESP front end parses requests. Also checks what the stream's
 * bytes do to the offset: counted per processed command, not inside a MULTI block until its EXEC, whatever
 * the way the bytes are cut into reads.
 */
class ReplicationApplyCostTest {
    private static final int KEYS = 1000;

    @Test
    void applyingASetAllocatesLittleBesidesItsValue() throws Exception {
        ThreadMXBean mx = (ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (ServerSocket fake = new ServerSocket(0);
             SpinelServer replica = SpinelServer.start(ServerConfig.defaults().with("port", "0"));
             RawClient c = new RawClient(replica.port())) {
            List<Thread> earlier = linkThreads(); // other tests' links may still be winding down
            c.callString("REPLICAOF", "127.0.0.1", Integer.toString(fake.getLocalPort()));
            try (Socket link = fake.accept()) {
                OutputStream out = fullResync(link);
                long offset = 0;
                byte[] warm = sets(50_000, 0);
                out.write(warm);
                out.flush();
                offset += warm.length;
                awaitOffset(c, offset);
                long tid = applierThread(earlier);
                long before = mx.getThreadAllocatedBytes(tid);
                int n = 200_000;
                for (int part = 0; part < 4; part++) {
                    byte[] b = sets(n / 4, 1 + part);
                    out.write(b);
                    offset += b.length;
                }
                out.flush();
                awaitOffset(c, offset);
                long perCommand = (mx.getThreadAllocatedBytes(tid) - before) / n;
                System.out.println("replica apply: " + perCommand + " bytes allocated per SET applied");
                // the value kept (a 16-byte array: 32 bytes with its header) and some slack; the old path
                // (an argv array, a copy of every argument, a command-name String, an Args, a String per
                // length line) allocated about 500
                assertTrue(perCommand < 120, perCommand + " bytes allocated per SET applied");
                assertEquals(":" + KEYS + "\r\n", c.callString("DBSIZE"));
                assertEquals("$16\r\nvalue-4-00000999\r\n", c.callString("GET", "key:999"));
            }
            c.callString("REPLICAOF", "NO", "ONE");
        }
    }

    @Test
    void offsetMovesPerCommandAndNotInsideMultiWhateverTheReads() throws Exception {
        try (ServerSocket fake = new ServerSocket(0);
             SpinelServer replica = SpinelServer.start(ServerConfig.defaults().with("port", "0"));
             RawClient c = new RawClient(replica.port())) {
            c.callString("REPLICAOF", "127.0.0.1", Integer.toString(fake.getLocalPort()));
            try (Socket link = fake.accept()) {
                OutputStream out = fullResync(link);
                byte[] first = frame("SET", "a", "1");
                byte[] multi = frame("MULTI");
                byte[] inc = frame("INCR", "a");
                byte[] exec = frame("EXEC");
                // the first command, then MULTI and half of its INCR in one write
                out.write(first);
                out.write(multi);
                out.write(inc, 0, inc.length / 2);
                out.flush();
                awaitOffset(c, first.length);
                Thread.sleep(100);
                assertEquals(Long.toString(first.length), info(c).get("slave_repl_offset"));
                assertEquals("$1\r\n1\r\n", c.callString("GET", "a"));
                // the rest of the block, a byte at a time: nothing counts before EXEC's last byte
                byte[] rest = concat(java.util.Arrays.copyOfRange(inc, inc.length / 2, inc.length), exec);
                for (int i = 0; i < rest.length - 1; i++) {
                    out.write(rest[i]);
                    out.flush();
                }
                Thread.sleep(100);
                assertEquals(Long.toString(first.length), info(c).get("slave_repl_offset"));
                assertEquals("$1\r\n1\r\n", c.callString("GET", "a"));
                out.write(rest[rest.length - 1]);
                // keepalive newlines between commands count in the offset, as Redis's do
                out.write("\n".getBytes(StandardCharsets.US_ASCII));
                byte[] last = frame("SET", "b", "2");
                out.write(last);
                out.flush();
                long end = first.length + multi.length + inc.length + exec.length + 1 + last.length;
                awaitOffset(c, end);
                assertEquals("$1\r\n2\r\n", c.callString("GET", "a"));
                assertEquals("$1\r\n2\r\n", c.callString("GET", "b"));
            }
            c.callString("REPLICAOF", "NO", "ONE");
        }
    }

    @Test
    void aChainedReplicaGetsBlocksAndBigValuesCutAcrossReadsUnchanged() throws Exception {
        try (ServerSocket fake = new ServerSocket(0);
             SpinelServer middle = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("repl-diskless-sync-delay", "0"));
             SpinelServer leaf = SpinelServer.start(ServerConfig.defaults().with("port", "0"));
             RawClient mid = new RawClient(middle.port());
             RawClient l = new RawClient(leaf.port())) {
            mid.callString("REPLICAOF", "127.0.0.1", Integer.toString(fake.getLocalPort()));
            try (Socket link = fake.accept()) {
                OutputStream out = fullResync(link);
                awaitOffset(mid, 0);
                l.callString("REPLICAOF", "127.0.0.1", Integer.toString(middle.port()));
                long deadline = System.nanoTime() + 20_000_000_000L;
                while (!"up".equals(info(l).get("master_link_status"))) {
                    assertTrue(System.nanoTime() < deadline, "leaf not linked");
                    Thread.sleep(20);
                }
                String big = "x".repeat(200_000);
                ByteArrayOutputStream all = new ByteArrayOutputStream();
                all.writeBytes(frame("SET", "a", "1"));
                all.writeBytes(frame("MULTI"));
                all.writeBytes(frame("INCR", "a"));
                all.writeBytes(frame("SET", "big", big));
                all.writeBytes(frame("EXEC"));
                all.writeBytes(frame("SET", "big2", big));
                byte[] stream = all.toByteArray();
                // cut into reads that end inside the block and inside the big values
                for (int from = 0; from < stream.length; from += 30_001) {
                    out.write(stream, from, Math.min(30_001, stream.length - from));
                    out.flush();
                    Thread.sleep(5);
                }
                awaitOffset(mid, stream.length);
                awaitOffset(l, stream.length);
                assertEquals(Long.toString(stream.length), info(mid).get("master_repl_offset"));
                for (RawClient c : List.of(mid, l)) {
                    assertEquals("$1\r\n2\r\n", c.callString("GET", "a"));
                    assertEquals("$200000\r\n" + big + "\r\n", c.callString("GET", "big"));
                    assertEquals("$200000\r\n" + big + "\r\n", c.callString("GET", "big2"));
                }
            }
            l.callString("REPLICAOF", "NO", "ONE");
            mid.callString("REPLICAOF", "NO", "ONE");
        }
    }

    /** The id of the thread that applies the stream (the one this replica's link runs on, not one of {@code earlier}). */
    private static long applierThread(List<Thread> earlier) {
        List<Thread> found = linkThreads();
        found.removeAll(earlier);
        assertEquals(1, found.size(), "new link threads: " + found + " (earlier: " + earlier + ")");
        return found.getFirst().threadId();
    }

    private static List<Thread> linkThreads() {
        List<Thread> found = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().startsWith("spinel-replica-link")) {
                found.add(t);
            }
        }
        return found;
    }

    private static byte[] sets(int n, int round) {
        ByteArrayOutputStream b = new ByteArrayOutputStream(n * 48);
        for (int i = 0; i < n; i++) {
            int k = i % KEYS;
            b.writeBytes(frame("SET", "key:" + k, String.format("value-%d-%08d", round, k)));
        }
        return b.toByteArray();
    }

    static byte[] frame(String... words) {
        List<byte[]> l = new ArrayList<>();
        for (String w : words) {
            l.add(w.getBytes(StandardCharsets.UTF_8));
        }
        return RawClient.encode(l);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] r = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    private static void awaitOffset(RawClient c, long offset) throws Exception {
        long deadline = System.nanoTime() + 20_000_000_000L;
        String seen = null;
        while (System.nanoTime() < deadline) {
            seen = info(c).get("slave_repl_offset");
            if (Long.toString(offset).equals(seen)) {
                return;
            }
            Thread.sleep(10);
        }
        throw new AssertionError("replica offset " + seen + ", expected " + offset);
    }

    /** Plays a master up to the end of a full resync with an empty dataset at offset 0. */
    private static OutputStream fullResync(Socket link) throws IOException {
        link.setTcpNoDelay(true);
        OutputStream out = FakeMasterIo.handshake(link);
        byte[] rdb = emptyRdb();
        out.write(("$" + rdb.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
        out.write(rdb);
        out.flush();
        return out;
    }

    /** "REDIS0010", EOF, and a zero checksum (rdbchecksum no). */
    private static byte[] emptyRdb() {
        byte[] head = "REDIS0010".getBytes(StandardCharsets.US_ASCII);
        byte[] rdb = new byte[head.length + 1 + 8];
        System.arraycopy(head, 0, rdb, 0, head.length);
        rdb[head.length] = (byte) 0xff;
        return rdb;
    }
}
