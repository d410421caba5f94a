package dev.spinel.server.commands;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** CLIENT PAUSE delays (never rejects) commands; CLIENT REPLY drops replies. Timing-based. */
class ClientPauseAndReplyTest {
    private static SpinelServer server;

    @BeforeAll
    static void start() {
        server = SpinelServer.startEphemeral();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @AfterEach
    void unpause() {
        server.engine().pause().unpause();
    }

    private static long millisSince(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    @Test
    void writePauseDelaysWritesOnlyUntilTheDeadline() throws Exception {
        try (RawClient admin = new RawClient(server.port()); RawClient w = new RawClient(server.port());
             RawClient r = new RawClient(server.port())) {
            assertEquals("+OK\r\n", admin.callString("CLIENT", "PAUSE", "1500", "WRITE"));
            long t0 = System.nanoTime();
            assertEquals("$-1\r\n", r.callString("GET", "paused-key")); // reads go on
            assertTrue(millisSince(t0) < 1000, "GET waited " + millisSince(t0) + " ms");
            assertEquals("+OK\r\n", w.callString("SET", "paused-key", "v"));
            long waited = millisSince(t0);
            assertTrue(waited >= 1400 && waited < 5000, "SET waited " + waited + " ms");
            assertEquals("$1\r\nv\r\n", r.callString("GET", "paused-key"));
        }
    }

    @Test
    void unpauseReleasesAPostponedPipelineInOrder() throws Exception {
        try (RawClient admin = new RawClient(server.port()); RawClient w = new RawClient(server.port())) {
            assertEquals("+OK\r\n", admin.callString("CLIENT", "PAUSE", "30000", "WRITE"));
            // A pipeline: a read, a postponed write, then more; replies must come back in order.
            w.sendRaw("GET pk\r\nSET pk 1\r\nSET pk 2 GET\r\nGET pk\r\n".getBytes(StandardCharsets.US_ASCII));
            assertEquals("$-1\r\n", new String(w.readReply(), StandardCharsets.US_ASCII));
            CompletableFuture<String> rest = CompletableFuture.supplyAsync(() -> {
                try {
                    return new String(w.readReply()) + new String(w.readReply()) + new String(w.readReply());
                } catch (Exception e) {
                    return e.toString();
                }
            });
            Thread.sleep(300);
            assertFalse(rest.isDone());
            String list = admin.callString("CLIENT", "LIST");
            assertTrue(list.contains(" flags=b "), list); // the postponed client shows as blocked
            long t0 = System.nanoTime();
            assertEquals("+OK\r\n", admin.callString("CLIENT", "UNPAUSE"));
            assertEquals("+OK\r\n$1\r\n1\r\n$1\r\n2\r\n", rest.get(5, TimeUnit.SECONDS));
            assertTrue(millisSince(t0) < 2000);
        }
    }

    @Test
    void allPauseDelaysEveryCommandIncludingTheCaller() throws Exception {
        try (RawClient admin = new RawClient(server.port()); RawClient r = new RawClient(server.port())) {
            assertEquals("+OK\r\n", admin.callString("CLIENT", "PAUSE", "400"));
            long t0 = System.nanoTime();
            assertEquals("+PONG\r\n", r.callString("PING"));
            assertTrue(millisSince(t0) >= 300, "PING waited " + millisSince(t0));
            // A later, shorter pause keeps the longer end and the stronger type.
            assertEquals("+OK\r\n", admin.callString("CLIENT", "PAUSE", "500", "WRITE"));
            assertEquals("+OK\r\n", admin.callString("CLIENT", "PAUSE", "50", "ALL"));
            t0 = System.nanoTime();
            assertEquals("+PONG\r\n", r.callString("PING"));
            assertTrue(millisSince(t0) >= 350, "PING waited " + millisSince(t0));
        }
    }

    @Test
    void pausedClientCanBeKilledAndOthersContinue() throws Exception {
        try (RawClient admin = new RawClient(server.port()); RawClient w = new RawClient(server.port())) {
            String id = w.callString("CLIENT", "ID");
            assertEquals("+OK\r\n", admin.callString("CLIENT", "PAUSE", "300", "WRITE"));
            w.sendRaw("SET killed 1\r\n".getBytes(StandardCharsets.US_ASCII));
            Thread.sleep(100);
            assertEquals(":1\r\n", admin.callString("CLIENT", "KILL", "ID", id.substring(1, id.length() - 2)));
            assertTrue(w.isClosedByServer());
            Thread.sleep(400);
            assertEquals("$-1\r\n", admin.callString("GET", "killed")); // the postponed SET never ran
        }
    }

    @Test
    void replyOffAndSkip() throws Exception {
        try (RawClient c = new RawClient(server.port())) {
            c.sendRaw(("CLIENT REPLY OFF\r\nSET r 1\r\nPING\r\nCLIENT REPLY SKIP\r\nSET r 2\r\nCLIENT REPLY ON\r\n"
                    + "CLIENT REPLY SKIP\r\nSET r 3\r\nGET r\r\n").getBytes(StandardCharsets.US_ASCII));
            assertEquals("+OK\r\n", new String(c.readReply()));
            assertEquals("$1\r\n3\r\n", new String(c.readReply()));
            assertEquals("+PONG\r\n", c.callString("PING"));
        }
    }
}
