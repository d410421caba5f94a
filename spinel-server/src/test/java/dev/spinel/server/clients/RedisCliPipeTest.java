package dev.spinel.server.clients;

import dev.spinel.server.SpinelServer;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * What {@code redis-cli --pipe} and {@code printf 'PING\r\n' | nc} do, in raw bytes: a big pipeline written
 * while replies are read, ended by {@code ECHO <20 random bytes>}; the client stops reading when the marker
 * arrives, so every reply before it must be there, in order.
 */
class RedisCliPipeTest {

    @Test
    void massInsertionEndedByAnEchoMarker() throws Exception {
        try (SpinelServer server = SpinelServer.startEphemeral(); Socket s = new Socket("127.0.0.1", server.port())) {
            s.setSoTimeout(30_000);
            byte[] marker = new byte[20];
            new Random(99).nextBytes(marker);
            ByteArrayOutputStream data = new ByteArrayOutputStream();
            int commands = 0;
            for (int i = 0; i < 100_000; i++, commands++) {
                String k = "key:" + i;
                data.writeBytes(("*3\r\n$3\r\nSET\r\n$" + k.length() + "\r\n" + k + "\r\n$32\r\n" + "v".repeat(22)
                        + String.format("%010d", i) + "\r\n").getBytes(StandardCharsets.US_ASCII));
            }
            for (int i = 0; i < 50_000; i++, commands++) {
                data.writeBytes(("SET inline:" + i + " " + i + "\r\n").getBytes(StandardCharsets.US_ASCII));
            }
            data.writeBytes("*2\r\n$4\r\nECHO\r\n$20\r\n".getBytes(StandardCharsets.US_ASCII));
            data.writeBytes(marker);
            data.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
            byte[] bytes = data.toByteArray();

            // write in odd-sized pieces from another thread while this one reads, as redis-cli does
            OutputStream out = s.getOutputStream();
            CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
                try {
                    int pos = 0;
                    Random r = new Random(5);
                    while (pos < bytes.length) {
                        int n = Math.min(bytes.length - pos, 1 + r.nextInt(16 * 1024));
                        out.write(bytes, pos, n);
                        pos += n;
                    }
                    out.flush();
                } catch (Exception e) {
                    throw new RuntimeException(e);
                }
            });

            ByteArrayOutputStream expected = new ByteArrayOutputStream();
            for (int i = 0; i < commands; i++) {
                expected.writeBytes("+OK\r\n".getBytes(StandardCharsets.US_ASCII));
            }
            expected.writeBytes("$20\r\n".getBytes(StandardCharsets.US_ASCII));
            expected.writeBytes(marker);
            expected.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
            byte[] want = expected.toByteArray();

            byte[] got = s.getInputStream().readNBytes(want.length);
            writer.get(30, TimeUnit.SECONDS);
            assertEquals(want.length, got.length);
            assertArrayEquals(want, got);
            byte[] tail = Arrays.copyOfRange(got, got.length - 22, got.length - 2);
            assertArrayEquals(marker, tail, "redis-cli looks for the marker in the last bytes received");

            // everything was stored
            s.getOutputStream().write("GET key:99999\r\nGET inline:49999\r\n".getBytes(StandardCharsets.US_ASCII));
            String stored = "$32\r\n" + "v".repeat(22) + "0000099999\r\n$5\r\n49999\r\n";
            assertEquals(stored, new String(s.getInputStream().readNBytes(stored.length()), StandardCharsets.US_ASCII));
        }
    }

    @Test
    void inlineRequestFollowedByHalfCloseIsAnswered() throws Exception {
        // printf 'PING\r\n' | nc host port: the request and the end of input arrive together
        try (SpinelServer server = SpinelServer.startEphemeral(); Socket s = new Socket("127.0.0.1", server.port())) {
            s.setSoTimeout(5000);
            s.getOutputStream().write("PING\r\nECHO \"a b\"\r\nSET k v\r\nGET k\r\n".getBytes(StandardCharsets.US_ASCII));
            s.shutdownOutput();
            InputStream in = s.getInputStream();
            assertEquals("+PONG\r\n$3\r\na b\r\n+OK\r\n$1\r\nv\r\n", new String(in.readAllBytes(), StandardCharsets.US_ASCII));
        }
    }
}
