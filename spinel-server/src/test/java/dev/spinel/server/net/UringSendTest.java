package dev.spinel.server.net;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Replies sent from the loop on io_uring ({@link UringSend}, {@code io-uring-direct-send}): the path is taken for
 * each unpipelined request (and not when the directive is off), and clients that go away while their sends are in
 * flight or partly sent leave the server serving the others, with every connection's state released.
 */
class UringSendTest {
    @BeforeEach
    void needsIoUring() {
        assumeTrue(IoTransport.IO_URING.available(), () -> "io_uring unavailable: " + IoTransport.IO_URING.unavailabilityCause());
    }

    private static SpinelServer start(String direct) {
        return SpinelServer.start(ServerConfig.defaults().with("port", "0").with("io-transport", "io_uring")
                .with("event-loop-threads", "1").with("io-uring-direct-send", direct));
    }

    /** The sends the one loop queued so far. */
    private static long sends(SpinelServer server) throws Exception {
        return server.eventLoops().next().submit(UringSend::sendsOnThisLoop).get();
    }

    @Test
    void eachUnpipelinedReplyIsOneSendFromTheLoop() throws Exception {
        try (SpinelServer server = start("yes"); RawClient c = new RawClient(server.port())) {
            assertEquals("+PONG\r\n", c.callString("PING"));
            long before = sends(server);
            for (int i = 0; i < 200; i++) {
                assertEquals("+OK\r\n", c.callString("SET", "k" + i, "v" + i));
                assertEquals("$" + ("v" + i).length() + "\r\nv" + i + "\r\n", c.callString("GET", "k" + i));
            }
            assertEquals(400, sends(server) - before);
        }
    }

    @Test
    void bothRingSetupsServe() throws Exception {
        for (String singleIssuer : new String[] {"yes", "no"}) {
            try (SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0")
                    .with("io-transport", "io_uring").with("io-uring-single-issuer", singleIssuer));
                 RawClient c = new RawClient(server.port())) {
                assertEquals(IoTransport.IO_URING, server.transport());
                for (int i = 0; i < 100; i++) {
                    assertEquals("+OK\r\n", c.callString("SET", "k", "v" + i));
                }
                assertEquals("$3\r\nv99\r\n", c.callString("GET", "k"));
                String other = singleIssuer.equals("yes") ? "no" : "yes";
                assertTrue(c.callString("CONFIG", "SET", "io-uring-single-issuer", other).startsWith("-ERR"),
                        "fixed at start: the rings are set up once");
            }
        }
    }

    @Test
    void directiveOffLeavesRepliesToNetty() throws Exception {
        try (SpinelServer server = start("no"); RawClient c = new RawClient(server.port())) {
            for (int i = 0; i < 50; i++) {
                assertEquals("+PONG\r\n", c.callString("PING"));
            }
            assertEquals(0, sends(server));
        }
    }

    @Test
    void clientsGoneWithSendsInFlightLeaveTheOthersServed() throws Exception {
        try (SpinelServer server = start("yes"); RawClient c = new RawClient(server.port())) {
            assertEquals("+OK\r\n", c.callString("SET", "big", "x".repeat(50_000)));
            byte[] gets = pipelined(300, "GET", "big"); // 15 MB of replies: sent, partly sent, queued in Netty
            List<Socket> gone = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                Socket s = Sockets.open(server.port());
                s.setSoLinger(true, 0); // closed with a reset: sends fail, not only wait
                Sockets.send(s, gets);
                gone.add(s);
            }
            for (int i = 0; i < 20; i++) {
                assertEquals("+PONG\r\n", c.callString("PING"));
                if (i % 2 == 0) {
                    gone.get(i).getInputStream().read(new byte[70_000]); // some read a little first
                }
                gone.get(i).close();
            }
            long deadline = System.nanoTime() + 10_000_000_000L;
            long clients;
            do {
                clients = c.infoNumbers("clients").get("connected_clients");
            } while (clients != 1 && System.nanoTime() < deadline);
            assertEquals(1, clients, "every gone client was closed");
            assertEquals(50_000 + 10, c.call("GET", "big").length, "the server still serves");
        }
    }

    @Test
    void closeAfterReplyWaitsForTheSendInFlight() throws Exception {
        try (SpinelServer server = start("yes"); Socket s = Sockets.open(server.port())) {
            s.setSoTimeout(10_000);
            Sockets.send(s, pipelined(1, "SET", "v", "y".repeat(60_000)));
            assertEquals("+OK\r\n", Sockets.readExactly(s, 5));
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            b.write(pipelined(5, "GET", "v"));
            b.write(pipelined(1, "QUIT"));
            Sockets.send(s, b.toByteArray());
            byte[] all = s.getInputStream().readAllBytes(); // up to the server's close
            String one = "$60000\r\n" + "y".repeat(60_000) + "\r\n";
            assertEquals(one.repeat(5) + "+OK\r\n", new String(all, StandardCharsets.ISO_8859_1));
            assertTrue(sends(server) > 0);
        }
    }

    private static byte[] pipelined(int times, String... args) throws IOException {
        List<byte[]> argv = new ArrayList<>();
        for (String a : args) {
            argv.add(a.getBytes(StandardCharsets.ISO_8859_1));
        }
        byte[] one = RawClient.encode(argv);
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int i = 0; i < times; i++) {
            b.write(one);
        }
        return b.toByteArray();
    }
}
