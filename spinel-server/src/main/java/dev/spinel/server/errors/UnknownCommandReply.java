package dev.spinel.server.errors;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.ReplyBuffer;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The reply to an unknown command, byte for byte as Redis 7.0's {@code commandCheckExistence} builds it:
 * {@code unknown command '%.128s', with args beginning with: } then {@code '%.*s' } per argument while the
 * list is under 128 bytes. Arguments are client bytes, not text: printf's {@code %s} copies them as they are
 * (no UTF-8 decoding), counts its precision in bytes and stops at a NUL; CR and LF become spaces.
 *
 * <p>Stateless and thread-safe.
 */
public final class UnknownCommandReply {
    private static final byte[] HEAD = "-ERR unknown command '".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] MIDDLE = "', with args beginning with: ".getBytes(StandardCharsets.US_ASCII);

    private UnknownCommandReply() {
    }

    public static void write(ReplyBuffer out, Args args) {
        ByteArrayOutputStream b = new ByteArrayOutputStream(64);
        b.writeBytes(HEAD);
        appendC(b, args, 0, 128);
        b.writeBytes(MIDDLE);
        int listed = 0;
        for (int i = 1; i < args.count() && listed < 128; i++) {
            int before = b.size();
            b.write('\'');
            appendC(b, args, i, 128 - listed);
            b.write('\'');
            b.write(' ');
            listed += b.size() - before;
        }
        byte[] reply = b.toByteArray();
        for (int k = 1; k < reply.length; k++) {
            if (reply[k] == '\r' || reply[k] == '\n') {
                reply[k] = ' ';
            }
        }
        out.raw(reply).raw(CRLF);
    }

    private static final byte[] CRLF = {'\r', '\n'};

    /** Appends argument {@code i} as C's {@code %.<max>s} would: at most {@code max} bytes, up to a NUL. */
    private static void appendC(ByteArrayOutputStream b, Args args, int i, int max) {
        byte[] buf = args.buffer();
        int off = args.offset(i);
        int n = Math.min(args.length(i), max);
        for (int k = 0; k < n; k++) {
            byte c = buf[off + k];
            if (c == 0) {
                return;
            }
            b.write(c);
        }
    }
}
