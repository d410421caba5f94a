package dev.spinel.server.replication;

import dev.spinel.protocol.QueryBuffer;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * Reads what a master sends on a replication link before its stream: status lines and the RDB payload,
 * counting every byte consumed; the stream itself is parsed by the {@link StreamApplier}, which takes
 * over the bytes buffered here ({@link #drainTo}).
 *
 * <p>Thread-safety: not thread-safe; used by the link's own thread only.
 */
final class StreamReader {
    private final InputStream in;
    private final byte[] buf = new byte[64 * 1024];
    private int pos;
    private int end;
    private long consumed;

    StreamReader(InputStream in) {
        this.in = in;
    }

    /** Bytes consumed since the start. */
    long consumed() {
        return consumed;
    }

    private int read() throws IOException {
        if (pos == end) {
            end = in.read(buf, 0, buf.length);
            pos = 0;
            if (end <= 0) {
                end = 0;
                throw new EOFException("connection lost");
            }
        }
        consumed++;
        return buf[pos++] & 0xff;
    }

    /**
     * Hands what is buffered and not consumed to {@code q} (counted as consumed): the stream after the sync's
     * answer, which the {@link StreamApplier} goes on reading from {@link #source}.
     */
    void drainTo(QueryBuffer q) {
        q.append(buf, pos, end - pos);
        consumed += end - pos;
        pos = end;
    }

    /** The socket's stream, for reading on once {@link #drainTo} took the buffered bytes. */
    InputStream source() {
        return in;
    }

    /**
     * A diskless payload: every byte up to the 40-byte {@code mark} that ends it (Redis's EOF-marked RDB);
     * returns the bytes before the mark.
     */
    byte[] readUntilMark(byte[] mark) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(1 << 16);
        byte[] tail = new byte[mark.length];
        long n = 0;
        while (true) {
            int b = read();
            out.write(b);
            tail[(int) (n % mark.length)] = (byte) b;
            n++;
            if (n >= mark.length && endsWith(tail, n, mark)) {
                byte[] all = out.toByteArray();
                return Arrays.copyOf(all, all.length - mark.length);
            }
        }
    }

    /**
     * The next {@code length} bytes as a stream, read from the socket as the consumer asks (a diskless load);
     * {@link InputStream#read()} answers -1 after them.
     */
    InputStream payload(long length) {
        return new InputStream() {
            private long left = length;

            @Override
            public int read() throws IOException {
                if (left == 0) {
                    return -1;
                }
                left--;
                return StreamReader.this.read();
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                if (left == 0) {
                    return -1;
                }
                if (pos == end) {
                    int c = read();
                    b[off] = (byte) c;
                    return 1;
                }
                int n = (int) Math.min(Math.min(len, left), end - pos);
                System.arraycopy(buf, pos, b, off, n);
                pos += n;
                consumed += n;
                left -= n;
                return n;
            }
        };
    }

    /**
     * The bytes up to the 40-byte {@code mark} as a stream read from the socket as the consumer asks (a
     * diskless load of an EOF-marked payload): the last {@code mark.length} bytes read are held back until
     * the next one shows they are not the mark; -1 once the mark was read.
     */
    InputStream payloadUntilMark(byte[] mark) {
        return new InputStream() {
            private final byte[] ring = new byte[mark.length];
            private int head; // the oldest byte held back
            private int held;
            private boolean done;

            @Override
            public int read() throws IOException {
                if (done) {
                    return -1;
                }
                while (held < ring.length) {
                    ring[held++] = (byte) StreamReader.this.read();
                }
                if (ringIsMark()) {
                    done = true;
                    return -1;
                }
                int out = ring[head] & 0xff;
                ring[head] = (byte) StreamReader.this.read(); // the newest takes the oldest's place
                head = (head + 1) % ring.length;
                return out;
            }

            private boolean ringIsMark() {
                for (int i = 0; i < ring.length; i++) {
                    if (ring[(head + i) % ring.length] != mark[i]) {
                        return false;
                    }
                }
                return true;
            }
        };
    }

    private static boolean endsWith(byte[] ring, long n, byte[] mark) {
        int len = mark.length;
        for (int i = 0; i < len; i++) {
            if (ring[(int) ((n - len + i) % len)] != mark[i]) {
                return false;
            }
        }
        return true;
    }

    /** One line without its CRLF (a lone LF ends it too). */
    String line() throws IOException {
        StringBuilder sb = new StringBuilder();
        while (true) {
            int c = read();
            if (c == '\n') {
                break;
            }
            if (c != '\r') {
                sb.append((char) c);
            }
        }
        return sb.toString();
    }

    void readFully(byte[] dst) throws IOException {
        int off = 0;
        while (off < dst.length) {
            if (pos == end) {
                read();
                pos--;
                consumed--;
            }
            int n = Math.min(dst.length - off, end - pos);
            System.arraycopy(buf, pos, dst, off, n);
            pos += n;
            off += n;
            consumed += n;
        }
    }
}
