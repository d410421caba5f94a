package dev.spinel.server.replication;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

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
