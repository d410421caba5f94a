package dev.spinel.server.net;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * CLIENT LIST's query-buffer sizes (qbuf + qbuf-free) follow Redis's as its querybuf unit reads them: at least
 * 16 KiB and under 32 KiB after small requests, 0 once the client has been idle for more than 2 s (Redis's
 * cron frees the buffer); above 32 KiB after a large request, shrinking but not to 0 as small ones follow.
 * Spinel holds no buffer between reads: the size shown is that of the receive buffer the client's last read
 * would go into if the connection had one of its own ({@link OwnReceiveSize}), not the loop's shared one.
 */
class QueryBufferSizesTest {
    private static final Pattern QBUF = Pattern.compile(" qbuf=(\\d+) qbuf-free=(\\d+) ");

    private static long queryBuffer(RawClient admin, String name) throws Exception {
        for (String line : admin.callString("CLIENT", "LIST").split("\n")) {
            if (line.contains(" name=" + name + " ")) {
                Matcher m = QBUF.matcher(line);
                assertTrue(m.find(), line);
                return Long.parseLong(m.group(1)) + Long.parseLong(m.group(2));
            }
        }
        throw new AssertionError("no client " + name);
    }

    @Test
    @Timeout(30)
    void idleClientsQueryBufferIsFreedAfterTwoSeconds() throws Exception {
        try (SpinelServer server = SpinelServer.startEphemeral(); RawClient c = new RawClient(server.port());
             RawClient admin = new RawClient(server.port())) {
            assertEquals("+OK\r\n", c.callString("SELECT", "9"));
            assertEquals("+OK\r\n", c.callString("CLIENT", "SETNAME", "test_client"));
            long size = queryBuffer(admin, "test_client");
            assertTrue(size >= 16384 && size < 32768, "after small requests: " + size);
            long deadline = System.currentTimeMillis() + 10_000;
            while (queryBuffer(admin, "test_client") != 0) {
                assertTrue(System.currentTimeMillis() < deadline, "query buffer not freed while idle");
                Thread.sleep(100);
            }
        }
    }

    @Test
    @Timeout(30)
    void largeRequestGrowsTheBufferAndSmallOnesShrinkIt() throws Exception {
        try (SpinelServer server = SpinelServer.startEphemeral(); RawClient c = new RawClient(server.port());
             RawClient admin = new RawClient(server.port())) {
            assertEquals("+OK\r\n", c.callString("CLIENT", "SETNAME", "test_client"));
            byte[] big = "A".repeat(400_000).getBytes(StandardCharsets.US_ASCII);
            assertEquals("+OK\r\n", new String(c.call(List.of(bytes("SET"), bytes("x"), big)), StandardCharsets.US_ASCII));
            long orig = queryBuffer(admin, "test_client");
            assertTrue(orig > 32768, "after a 400 KB request: " + orig);
            long now = orig;
            for (int i = 0; i < 50 && now >= orig; i++) {
                assertEquals("+OK\r\n", c.callString("SET", "x", "A".repeat(100)));
                now = queryBuffer(admin, "test_client");
            }
            assertTrue(now > 0 && now < orig, "after small requests: " + now + ", was " + orig);
        }
    }

    @Test
    @Timeout(30)
    void aFreshClientShowsItsOwnSizeBesideSmallReadersOnItsLoop() throws Exception {
        // one loop: the other clients' small reads bring the loop's shared receive size to its 4 KiB floor
        ServerConfig config = ServerConfig.defaults().with("port", "0").with("event-loop-threads", "1");
        try (SpinelServer server = SpinelServer.start(config); RawClient busy = new RawClient(server.port());
             RawClient admin = new RawClient(server.port())) {
            for (int i = 0; i < 200; i++) {
                assertEquals("+PONG\r\n", busy.callString("PING"));
                assertEquals("+PONG\r\n", admin.callString("PING"));
            }
            try (RawClient c = new RawClient(server.port())) {
                assertEquals("+OK\r\n", c.callString("SELECT", "9"));
                assertEquals("+OK\r\n", c.callString("CLIENT", "SETNAME", "test_client"));
                long size = queryBuffer(admin, "test_client");
                assertTrue(size >= 16384 && size < 32768, "a fresh client beside small readers: " + size);
            }
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
