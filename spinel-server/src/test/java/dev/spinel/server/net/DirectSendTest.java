package dev.spinel.server.net;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Replies sent straight to the socket (DirectSend, from ReplyFlusher) and those that wait in Netty's
 * outbound buffer keep their order: a client that pauses reading while it pipelines replies larger than the
 * socket takes at once (the rest queued in Netty, the next batch's replies behind it) gets every byte, in order.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DirectSendTest {
    private SpinelServer server;

    /** The server these cases run on (subclasses: other transports). */
    ServerConfig config() {
        return ServerConfig.defaults().with("port", "0");
    }

    @BeforeAll
    void start() {
        server = SpinelServer.start(config());
    }

    @AfterAll
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void repliesKeepTheirOrderWhenTheSocketIsFull() throws Exception {
        repliesInOrder(300_000); // larger than a direct send: always through Netty
    }

    @Test
    void partlySentRepliesKeepTheirOrder() throws Exception {
        repliesInOrder(60_000); // sent directly while the socket takes them, then partly, then queued
    }

    private void repliesInOrder(int size) throws Exception {
        byte[] big = new byte[size];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) ('a' + i % 26);
        }
        try (Socket s = Sockets.open(server.port())) {
            s.setSoTimeout(10_000);
            Sockets.send(s, command("SET", "big", new String(big, StandardCharsets.ISO_8859_1)));
            assertEquals("+OK\r\n", Sockets.readExactly(s, 5));
            ByteArrayOutputStream expected = new ByteArrayOutputStream();
            byte[] bulk = ("$" + big.length + "\r\n").getBytes(StandardCharsets.ISO_8859_1);
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            byte[] chunk = new byte[16 * 1024];
            for (int round = 0; round < 200; round++) {
                // separate writes, so the server sees several read batches while its earlier replies are queued
                Sockets.send(s, command("GET", "big"));
                Sockets.send(s, command("ECHO", "r" + round));
                expected.write(bulk);
                expected.write(big);
                expected.write("\r\n".getBytes(StandardCharsets.ISO_8859_1));
                expected.write(("$" + ("r" + round).length() + "\r\nr" + round + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
                if (round % 3 == 0) {
                    // read a little less than is sent: the socket stays nearly full, its space comes and goes
                    got.write(chunk, 0, s.getInputStream().read(chunk));
                }
            }
            byte[] want = expected.toByteArray();
            got.write(s.getInputStream().readNBytes(want.length - got.size()));
            assertEquals(want.length, got.size());
            if (!Arrays.equals(want, got.toByteArray())) {
                int at = Arrays.mismatch(want, got.toByteArray());
                throw new AssertionError("replies differ at byte " + at + " of " + want.length);
            }
            Sockets.send(s, command("PING"));
            assertArrayEquals("+PONG\r\n".getBytes(StandardCharsets.ISO_8859_1), s.getInputStream().readNBytes(7));
        }
    }

    private static byte[] command(String... args) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.write(("*" + args.length + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
        for (String a : args) {
            byte[] v = a.getBytes(StandardCharsets.ISO_8859_1);
            b.write(("$" + v.length + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
            b.write(v);
            b.write("\r\n".getBytes(StandardCharsets.ISO_8859_1));
        }
        return b.toByteArray();
    }
}
