package dev.spinel.client;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The client against a scripted server on a plain socket, for what real servers do not do on demand:
 * a server that knows no HELLO (RESP2 fallback), and a connection that dies with commands in flight.
 */
class FakeServerTest {

    /** Reads one RESP command (array of bulk strings); returns its name, or null at end of stream. */
    private static String readCommand(InputStream in) throws IOException {
        String header = line(in);
        if (header == null) {
            return null;
        }
        int n = Integer.parseInt(header.substring(1));
        String name = null;
        for (int i = 0; i < n; i++) {
            int len = Integer.parseInt(line(in).substring(1));
            byte[] b = in.readNBytes(len + 2);
            if (i == 0) {
                name = new String(b, 0, len, StandardCharsets.UTF_8);
            }
        }
        return name;
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        for (int c; (c = in.read()) != -1; ) {
            if (c == '\n') {
                return sb.substring(0, sb.length() - 1);
            }
            sb.append((char) c);
        }
        return null;
    }

    @Test
    void oldServerWithoutHelloGetsResp2AndPendingCommandsFailWhenTheConnectionDies() throws Exception {
        try (ServerSocket ss = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            CompletableFuture<String> script = CompletableFuture.supplyAsync(() -> {
                try {
                    // First connection: refuse HELLO like Redis 5, answer AUTH and SELECT, then die mid-stream.
                    try (Socket s = ss.accept()) {
                        InputStream in = s.getInputStream();
                        OutputStream out = s.getOutputStream();
                        assertEquals("HELLO", readCommand(in));
                        out.write("-ERR unknown command 'HELLO', with args beginning with: '3' \r\n".getBytes(StandardCharsets.US_ASCII));
                        assertEquals("AUTH", readCommand(in));
                        out.write("+OK\r\n".getBytes(StandardCharsets.US_ASCII));
                        assertEquals("SELECT", readCommand(in));
                        out.write("+OK\r\n".getBytes(StandardCharsets.US_ASCII));
                        assertEquals("PING", readCommand(in));
                        out.write("+PONG\r\n".getBytes(StandardCharsets.US_ASCII));
                        for (int i = 0; i < 3; i++) {
                            assertEquals("GET", readCommand(in)); // read, never answered
                        }
                    }
                    // Second connection: the handshake is replayed (AUTH and SELECT again), then it serves.
                    try (Socket s = ss.accept()) {
                        InputStream in = s.getInputStream();
                        OutputStream out = s.getOutputStream();
                        assertEquals("HELLO", readCommand(in));
                        out.write("-ERR unknown command 'HELLO'\r\n".getBytes(StandardCharsets.US_ASCII));
                        assertEquals("AUTH", readCommand(in));
                        out.write("+OK\r\n".getBytes(StandardCharsets.US_ASCII));
                        assertEquals("SELECT", readCommand(in));
                        out.write("+OK\r\n".getBytes(StandardCharsets.US_ASCII));
                        assertEquals("GET", readCommand(in));
                        out.write("$5\r\nfresh\r\n".getBytes(StandardCharsets.US_ASCII));
                        return "done";
                    }
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            ClientOptions options = ClientOptions.defaults().withReconnectDelay(Duration.ofMillis(10), Duration.ofMillis(50));
            try (SpinelClient<String, String> c = SpinelClient.create("redis://:pw@127.0.0.1:" + ss.getLocalPort() + "/5", options)) {
                assertEquals(2, c.protocol());
                assertEquals("PONG", c.sync().ping());
                CompletableFuture<String> a = c.async().get("a");
                CompletableFuture<String> b = c.async().get("b");
                CompletableFuture<String> d = c.async().get("c");
                for (CompletableFuture<String> f : List.of(a, b, d)) {
                    ExecutionException e = assertThrows(ExecutionException.class, () -> f.get(10, TimeUnit.SECONDS));
                    assertInstanceOf(ConnectionException.class, e.getCause());
                }
                assertEquals("fresh", c.async().get("x").get(10, TimeUnit.SECONDS));
            }
            assertEquals("done", script.get(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void garbageFromTheServerClosesTheConnectionAndFailsPending() throws Exception {
        try (ServerSocket ss = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            CompletableFuture.runAsync(() -> {
                try (Socket s = ss.accept()) {
                    InputStream in = s.getInputStream();
                    OutputStream out = s.getOutputStream();
                    readCommand(in);
                    out.write("%0\r\n".getBytes(StandardCharsets.US_ASCII)); // HELLO answered (an empty map will do)
                    readCommand(in);
                    out.write("?garbage\r\n".getBytes(StandardCharsets.US_ASCII));
                    in.read(); // until the client closes
                } catch (IOException ignored) {
                    // the client closed
                }
            });
            try (SpinelClient<String, String> c = SpinelClient.create("redis://127.0.0.1:" + ss.getLocalPort(),
                    ClientOptions.defaults().withReconnectDelay(Duration.ofSeconds(5), Duration.ofSeconds(5)))) {
                assertEquals(3, c.protocol());
                ExecutionException e = assertThrows(ExecutionException.class, () -> c.async().ping().get(10, TimeUnit.SECONDS));
                assertInstanceOf(ConnectionException.class, e.getCause());
            }
        }
    }
}
