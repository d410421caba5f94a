package dev.spinel.server.net;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/** Raw-socket helpers for the front-end tests. */
final class Sockets {
    private Sockets() {
    }

    static Socket open(int port) throws IOException {
        Socket s = new Socket("127.0.0.1", port);
        s.setTcpNoDelay(true);
        s.setSoTimeout(5000);
        return s;
    }

    static void send(Socket s, String text) throws IOException {
        send(s, text.getBytes(StandardCharsets.ISO_8859_1));
    }

    static void send(Socket s, byte[] bytes) throws IOException {
        s.getOutputStream().write(bytes);
        s.getOutputStream().flush();
    }

    /**
     * Reads until the server closes the connection (returns what came, then "<EOF>") or nothing arrives for
     * {@code quietMs} (returns what came, then "<open>"). A reset counts as a close.
     */
    static String readUntilCloseOrQuiet(Socket s, int quietMs) throws IOException {
        s.setSoTimeout(quietMs);
        InputStream in = s.getInputStream();
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        byte[] buf = new byte[8192];
        while (true) {
            int n;
            try {
                n = in.read(buf);
            } catch (SocketTimeoutException e) {
                return b.toString(StandardCharsets.ISO_8859_1) + "<open>";
            } catch (IOException e) {
                return b.toString(StandardCharsets.ISO_8859_1) + "<EOF>";
            }
            if (n < 0) {
                return b.toString(StandardCharsets.ISO_8859_1) + "<EOF>";
            }
            b.write(buf, 0, n);
        }
    }

    /** Reads exactly {@code n} bytes. */
    static String readExactly(Socket s, int n) throws IOException {
        byte[] b = s.getInputStream().readNBytes(n);
        return new String(b, StandardCharsets.ISO_8859_1);
    }

    /** Heap in use after a full collection, in bytes: a coarse but sufficient gauge of retained memory. */
    static long heapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** Heap after GC plus the direct memory Netty's allocator holds in use. */
    static long retained() {
        long direct = 0;
        if (io.netty.buffer.ByteBufAllocator.DEFAULT instanceof io.netty.buffer.ByteBufAllocatorMetricProvider m) {
            direct = m.metric().usedDirectMemory();
        }
        return heapAfterGc() + Math.max(0, direct);
    }
}
