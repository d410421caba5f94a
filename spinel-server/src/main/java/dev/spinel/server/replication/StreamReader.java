package dev.spinel.server.replication;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Reads what a master sends on a replication link: status lines, the RDB payload and the stream's
 * RESP arrays of bulk strings, counting every byte consumed so the replica's offset follows the
 * master's exactly (Redis's {@code reploff}: bytes of the commands processed).
 *
 * <p>Thread-safety: not thread-safe; used by the link's own thread only.
 */
final class StreamReader {
    private final InputStream in;
    private final byte[] buf = new byte[64 * 1024];
    private int pos;
    private int end;
    private long consumed;
    /** While recording: every byte consumed is also kept here (the stream a replica forwards). */
    private boolean recording;
    private byte[] rec = new byte[4096];
    private int recLen;

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
        byte b = buf[pos++];
        if (recording) {
            keep(b);
        }
        return b & 0xff;
    }

    private void keep(byte b) {
        if (recLen == rec.length) {
            rec = Arrays.copyOf(rec, rec.length * 2);
        }
        rec[recLen++] = b;
    }

    private void keep(byte[] b, int off, int len) {
        if (recLen + len > rec.length) {
            rec = Arrays.copyOf(rec, Math.max(rec.length * 2, recLen + len));
        }
        System.arraycopy(b, off, rec, recLen, len);
        recLen += len;
    }

    /** Starts (or stops) keeping the bytes consumed. */
    void record(boolean on) {
        recording = on;
        recLen = 0;
    }

    /** The bytes kept since the last {@link #clearRecorded} (valid up to {@link #recordedLength}). */
    byte[] recorded() {
        return rec;
    }

    int recordedLength() {
        return recLen;
    }

    void clearRecorded() {
        recLen = 0;
        if (rec.length > 1 << 20) {
            rec = new byte[4096]; // a huge command passed: do not keep its buffer
        }
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
                if (recording) {
                    keep(buf, pos, n);
                }
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
                if (recording) {
                    recLen--; // un-read: the copy below keeps it
                }
            }
            int n = Math.min(dst.length - off, end - pos);
            System.arraycopy(buf, pos, dst, off, n);
            if (recording) {
                keep(buf, pos, n);
            }
            pos += n;
            off += n;
            consumed += n;
        }
    }

    /** The next command of the stream as its arguments; null for an empty line (a keepalive newline). */
    byte[][] command() throws IOException {
        int first = read();
        if (first == '\n') {
            return null;
        }
        if (first != '*') {
            // an inline command (Redis masters only send arrays; tolerated as words)
            String rest = (char) first + line();
            String t = rest.trim();
            if (t.isEmpty()) {
                return null;
            }
            String[] words = t.split(" +");
            byte[][] argv = new byte[words.length][];
            for (int i = 0; i < words.length; i++) {
                argv[i] = words[i].getBytes(StandardCharsets.UTF_8);
            }
            return argv;
        }
        int n = Integer.parseInt(line());
        byte[][] argv = new byte[n][];
        for (int i = 0; i < n; i++) {
            int t = read();
            if (t != '$') {
                throw new IOException("protocol error: expected '$', got '" + (char) t + "'");
            }
            int len = Integer.parseInt(line());
            byte[] v = new byte[len];
            readFully(v);
            read();
            read(); // CRLF
            argv[i] = v;
        }
        return argv;
    }
}
