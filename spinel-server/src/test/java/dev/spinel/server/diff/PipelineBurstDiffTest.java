package dev.spinel.server.diff;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spinel.server.testing.SideBySide;
import java.io.ByteArrayOutputStream;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A client that writes a whole burst of requests before it reads any reply (Redis's own unit/maxmemory sends 1M
 * SETRANGEs, 9 MB of replies, so): Redis keeps reading it while the replies pile up. Spinel stopped reading such a
 * client once 1 MB of replies was held, so both sides waited to write, for ever.
 */
class PipelineBurstDiffTest {
    @RegisterExtension
    static final SideBySide servers = new SideBySide();

    private static final int REQUESTS = 12_000;
    private static final int PAYLOAD = 1000; // 12 MB of requests, 12 MB of replies

    @Test
    void burstWrittenBeforeAnyReplyIsReadCompletesAsInRedis() throws Exception {
        byte[] redis = burst(servers.redis().port());
        byte[] spinel = burst(servers.spinel().port());
        assertArrayEquals(redis, spinel, "digest of the replies");
    }

    /** Writes every request, then reads every reply; fails if the server stops taking requests. */
    private static byte[] burst(int port) throws Exception {
        String value = "x".repeat(PAYLOAD);
        byte[] request = ("*2\r\n$4\r\nECHO\r\n$" + PAYLOAD + "\r\n" + value + "\r\n").getBytes(StandardCharsets.US_ASCII);
        ByteArrayOutputStream all = new ByteArrayOutputStream(REQUESTS * request.length);
        for (int i = 0; i < REQUESTS; i++) {
            all.writeBytes(request);
        }
        long expected = (long) REQUESTS * ("$" + PAYLOAD + "\r\n" + value + "\r\n").length();
        try (SocketChannel c = SocketChannel.open()) {
            // small kernel buffers on the client's side, so that the server's own holding is what is tested
            c.setOption(StandardSocketOptions.SO_RCVBUF, 64 * 1024);
            c.setOption(StandardSocketOptions.SO_SNDBUF, 64 * 1024);
            c.connect(new InetSocketAddress("127.0.0.1", port));
            c.configureBlocking(false);
            ByteBuffer out = ByteBuffer.wrap(all.toByteArray());
            long lastProgress = System.nanoTime();
            while (out.hasRemaining()) {
                if (c.write(out) > 0) {
                    lastProgress = System.nanoTime();
                } else {
                    // a bound only a stall reaches, however loaded the machine
                    assertTrue(System.nanoTime() - lastProgress < 10_000_000_000L,
                            "the server stopped reading after " + out.position() + " of " + out.limit() + " bytes");
                    Thread.sleep(1);
                }
            }
            MessageDigest digest = MessageDigest.getInstance("SHA-256");
            ByteBuffer in = ByteBuffer.allocate(256 * 1024);
            long got = 0;
            lastProgress = System.nanoTime();
            while (got < expected) {
                int n = c.read(in);
                assertTrue(n >= 0, "connection closed after " + got + " bytes");
                if (n > 0) {
                    in.flip();
                    digest.update(in);
                    in.clear();
                    got += n;
                    lastProgress = System.nanoTime();
                } else {
                    assertTrue(System.nanoTime() - lastProgress < 10_000_000_000L, "replies stopped after " + got);
                    Thread.sleep(1);
                }
            }
            return digest.digest();
        }
    }
}
