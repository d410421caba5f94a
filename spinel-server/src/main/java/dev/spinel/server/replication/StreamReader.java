package dev.spinel.server.replication;

import dev.spinel.protocol.QueryBuffer;

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
        return payloadUntilMark(mark).readAllBytes();
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
     * diskless load of an EOF-marked payload); -1 once the mark was read. Reads go in bulk from this reader's
     * buffer: the bytes released are those no occurrence of the mark starts in, so the last {@code mark.length}
     * bytes received stay until more come or they are the mark (nothing follows it before the replica's ACK).
     */
    InputStream payloadUntilMark(byte[] mark) {
        return new InputStream() {
            private boolean done;
            /** buf[pos, clear) is known to hold no start of the mark: released without scanning it again. */
            private int clear;

            @Override
            public int read() throws IOException {
                byte[] one = new byte[1];
                return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) throws IOException {
                if (done) {
                    return -1;
                }
                if (len == 0) {
                    return 0;
                }
                if (clear > pos) {
                    int n = Math.min(len, clear - pos);
                    System.arraycopy(buf, pos, b, off, n);
                    pos += n;
                    consumed += n;
                    return n;
                }
                int need = mark.length;
                while (true) {
                    clear = 0; // a fill may move the buffered bytes
                    fillAtLeast(need);
                    int at = findMark(mark);
                    if (at == pos) {
                        done = true;
                        pos += mark.length;
                        consumed += mark.length;
                        return -1;
                    }
                    int limit = at >= 0 ? at : end - mark.length;
                    if (limit > pos) {
                        clear = limit;
                        int n = Math.min(len, limit - pos);
                        System.arraycopy(buf, pos, b, off, n);
                        pos += n;
                        consumed += n;
                        return n;
                    }
                    need = end - pos + 1; // only the last mark.length bytes, not the mark: one more byte decides
                }
            }
        };
    }

    /** The first position from {@code pos} where the whole {@code mark} is buffered, or -1. */
    private int findMark(byte[] mark) {
        int last = end - mark.length;
        for (int s = pos; s <= last; s++) {
            if (buf[s] == mark[0] && Arrays.equals(buf, s, s + mark.length, mark, 0, mark.length)) {
                return s;
            }
        }
        return -1;
    }

    /** Blocks until at least {@code n} (at most the buffer's size) unconsumed bytes are buffered. */
    private void fillAtLeast(int n) throws IOException {
        if (end - pos >= n) {
            return;
        }
        System.arraycopy(buf, pos, buf, 0, end - pos);
        end -= pos;
        pos = 0;
        while (end < n) {
            int r = in.read(buf, end, buf.length - end);
            if (r <= 0) {
                throw new EOFException("connection lost");
            }
            end += r;
        }
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
