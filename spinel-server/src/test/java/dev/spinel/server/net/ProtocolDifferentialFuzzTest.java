package dev.spinel.server.net;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Random request streams (valid frames, mutated frames, inline lines, random bytes) sent to Spinel and to a
 * real redis-server, each followed by a half-close: the bytes each server answers, and whether it closed,
 * must be identical. Only commands both implement are used (PING ECHO SET GET DEL SELECT) plus unknown ones.
 */
class ProtocolDifferentialFuzzTest {
    private static final String[] WORDS = {"PING", "ECHO", "SET", "GET", "DEL", "SELECT", "k", "v", "", "a b", "0",
            "1", "-1", "99", "\"q\"", "'", "\\x41", "*", "$", "\r\n", "nosuchcmd", "ping", "Get"};

    @Test
    void spinelAnswersRandomStreamsByteForByteLikeRedis() throws IOException {
        try (RedisServerProcess redis = RedisServerProcess.start(); SpinelServer spinel = SpinelServer.startEphemeral()) {
            // -Dfuzz.seed / -Dfuzz.iterations for a longer hunt
            Random r = new Random(Long.getLong("fuzz.seed", 7_500L));
            int iterations = Integer.getInteger("fuzz.iterations", 500);
            for (int iteration = 0; iteration < iterations; iteration++) {
                byte[] stream = randomStream(r);
                String expected = exchange(redis.port(), stream);
                String actual = exchange(spinel.port(), stream);
                assertEquals(expected, actual, "iteration " + iteration + ", stream: " + escape(stream));
            }
        }
    }

    /** Sends the stream, half-closes, and returns everything answered until the server closes. */
    private static String exchange(int port, byte[] stream) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(5000);
            try {
                s.getOutputStream().write(stream);
                s.shutdownOutput();
            } catch (IOException closedEarly) {
                // a protocol error may close the connection before everything is written
            }
            InputStream in = s.getInputStream();
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            byte[] buf = new byte[8192];
            while (true) {
                int n;
                try {
                    n = in.read(buf);
                } catch (SocketTimeoutException e) {
                    return escape(b.toByteArray()) + "<no close>";
                } catch (IOException e) {
                    break; // reset after a protocol error: what came before it counts
                }
                if (n < 0) {
                    break;
                }
                b.write(buf, 0, n);
            }
            return escape(b.toByteArray());
        }
    }

    private static byte[] randomStream(Random r) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes("SELECT 9\r\n".getBytes(StandardCharsets.US_ASCII)); // both start from an empty database
        int frames = 1 + r.nextInt(6);
        for (int f = 0; f < frames; f++) {
            b.writeBytes(switch (r.nextInt(6)) {
                case 0, 1 -> multibulk(r);
                case 2, 3 -> inline(r);
                case 4 -> mutate(multibulk(r), r);
                default -> randomBytes(r);
            });
        }
        // leave the database as it was found for the next iteration
        b.writeBytes("\r\n*3\r\n$3\r\nDEL\r\n$1\r\nk\r\n$1\r\nv\r\n".getBytes(StandardCharsets.US_ASCII));
        return b.toByteArray();
    }

    private static String word(Random r) {
        return WORDS[r.nextInt(WORDS.length)];
    }

    private static byte[] multibulk(Random r) {
        int n = 1 + r.nextInt(4);
        StringBuilder s = new StringBuilder("*").append(n).append("\r\n");
        for (int i = 0; i < n; i++) {
            String w = word(r);
            s.append('$').append(w.length()).append("\r\n").append(w).append("\r\n");
        }
        return s.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    private static byte[] inline(Random r) {
        StringBuilder s = new StringBuilder();
        int n = 1 + r.nextInt(4);
        for (int i = 0; i < n; i++) {
            s.append(word(r)).append(' ');
        }
        s.append(r.nextBoolean() ? "\r\n" : "\n");
        return s.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    private static byte[] mutate(byte[] frame, Random r) {
        int at = r.nextInt(frame.length);
        frame[at] = switch (r.nextInt(3)) {
            case 0 -> (byte) (' ' + r.nextInt(95));
            case 1 -> (byte) '9';
            default -> (byte) '\r';
        };
        return frame;
    }

    private static byte[] randomBytes(Random r) {
        byte[] b = new byte[1 + r.nextInt(30)];
        r.nextBytes(b);
        return b;
    }

    private static String escape(byte[] b) {
        StringBuilder s = new StringBuilder();
        for (byte x : b) {
            int c = x & 0xff;
            if (c >= 0x20 && c < 0x7f && c != '\\') {
                s.append((char) c);
            } else {
                s.append(String.format("\\x%02x", c));
            }
        }
        return s.toString();
    }
}
