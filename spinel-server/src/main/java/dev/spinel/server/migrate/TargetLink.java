package dev.spinel.server.migrate;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;

/**
 * One connection MIGRATE keeps to a target instance (Redis's migrateCachedSocket): blocking connect,
 * write and line read, each bounded by the command's timeout, as Redis's connBlockingConnect,
 * connSyncWrite and connSyncReadLine. The channel is non-blocking under a selector of its own so that a
 * write to a target that stops reading times out too.
 *
 * <p>Thread-safety: none; a link is used by one MIGRATE at a time ({@link MigrateSockets} hands it out
 * exclusively).
 */
public final class TargetLink implements AutoCloseable {
    private static final int MAX_LINE = 1024; // Redis reads each reply into a buffer of this size
    private final SocketChannel channel;
    private final Selector selector;
    private final ByteBuffer in = ByteBuffer.allocate(4096);
    /** Why the connection failed (refused, timed out), reported by the first write as Redis's does; or null. */
    private IOException broken;
    private int lastDb = -1;
    private long lastUseMillis;

    private TargetLink(SocketChannel channel, Selector selector) {
        this.channel = channel;
        this.selector = selector;
        in.flip();
    }

    /**
     * Connects within {@code timeoutMillis}. As Redis's connBlockingConnect, only a connection that cannot
     * even be attempted (an unknown host, a bad port) fails here; a refused or timed-out one gives a link
     * whose first write fails, so MIGRATE reports it as an error writing to the target.
     */
    static TargetLink connect(String host, int port, long timeoutMillis) throws IOException {
        SocketChannel ch = SocketChannel.open();
        Selector sel = null;
        try {
            ch.configureBlocking(false);
            ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
            sel = Selector.open();
            InetSocketAddress addr = new InetSocketAddress(host, port);
            if (addr.isUnresolved()) {
                throw new IOException("unknown host " + host);
            }
            TargetLink link = new TargetLink(ch, sel);
            try {
                if (!ch.connect(addr)) {
                    SelectionKey k = ch.register(sel, SelectionKey.OP_CONNECT);
                    long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
                    while (!ch.finishConnect()) {
                        await(sel, deadline);
                    }
                    k.cancel();
                    sel.selectNow();
                }
            } catch (IOException e) {
                link.broken = e;
            }
            return link;
        } catch (IOException | RuntimeException e) {
            ch.close();
            if (sel != null) {
                sel.close();
            }
            throw e instanceof IOException io ? io : new IOException(e);
        }
    }

    /** Writes all of {@code data}; a SocketTimeoutException when the target takes longer than the timeout. */
    public void write(byte[] data, long timeoutMillis) throws IOException {
        if (broken != null) {
            throw broken;
        }
        ByteBuffer b = ByteBuffer.wrap(data);
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        SelectionKey k = null;
        try {
            while (b.hasRemaining()) {
                if (channel.write(b) == 0) {
                    if (k == null) {
                        k = channel.register(selector, SelectionKey.OP_WRITE);
                    }
                    await(selector, deadline);
                } else {
                    deadline = System.nanoTime() + timeoutMillis * 1_000_000L; // per chunk, as connSyncWrite
                }
            }
        } finally {
            if (k != null) {
                k.cancel();
                selector.selectNow();
            }
        }
    }

    /**
     * Reads one reply line (without CR LF); an IOException when the connection closes first, a
     * SocketTimeoutException when nothing complete arrives within the timeout.
     */
    public String readLine(long timeoutMillis) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        SelectionKey k = null;
        try {
            while (true) {
                while (in.hasRemaining()) {
                    byte c = in.get();
                    if (c == '\n') {
                        byte[] b = line.toByteArray();
                        int n = b.length > 0 && b[b.length - 1] == '\r' ? b.length - 1 : b.length;
                        return new String(b, 0, n, StandardCharsets.ISO_8859_1);
                    }
                    if (line.size() < MAX_LINE) {
                        line.write(c);
                    }
                }
                in.clear();
                int n = channel.read(in);
                in.flip();
                if (n < 0) {
                    throw new IOException("connection closed by the target");
                }
                if (n == 0) {
                    if (k == null) {
                        k = channel.register(selector, SelectionKey.OP_READ);
                    }
                    await(selector, deadline);
                }
            }
        } finally {
            if (k != null) {
                k.cancel();
                selector.selectNow();
            }
        }
    }

    private static void await(Selector sel, long deadline) throws IOException {
        long left = (deadline - System.nanoTime()) / 1_000_000L;
        if (left <= 0 || sel.select(left) == 0 && System.nanoTime() - deadline >= 0) {
            throw new SocketTimeoutException("timeout");
        }
        sel.selectedKeys().clear();
    }

    /** The db the last successful MIGRATE selected on the target, -1 when unknown (SELECT is sent again). */
    public int lastDb() {
        return lastDb;
    }

    public void lastDb(int db) {
        lastDb = db;
    }

    long lastUseMillis() {
        return lastUseMillis;
    }

    void lastUseMillis(long millis) {
        lastUseMillis = millis;
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException ignored) {
            // closing a socket that failed: nothing left to release
        }
        try {
            selector.close();
        } catch (IOException ignored) {
            // as above
        }
    }
}
