package dev.spinel.server.diff;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.LoopHolder;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * INFO and CLIENT LIST see what requests other clients sent before them did, as in Redis, which reads them in
 * arrival order on its one thread (integration/shutdown "then aborted" counts two SHUTDOWNs sent just before
 * INFO as blocked clients; unit/client-eviction finds clients closed for their output limit gone from CLIENT
 * LIST). Here a client's loop is busy (DEBUG SLEEP) when another client on that loop sends a request and a
 * third, on another loop, asks at once: Spinel answered before the busy loop had read the request.
 */
class IntrospectionAfterOtherLoopsDiffTest {
    private static RedisServerProcess redis;
    private static SpinelServer spinel;

    @BeforeAll
    static void start() {
        redis = RedisServerProcess.start("--enable-debug-command", "yes");
        // two loops, connections dealt out in turn: the 1st and 3rd connection of each case share a loop
        spinel = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("enable-debug-command", "yes")
                .with("event-loop-threads", "2"));
    }

    @AfterAll
    static void stop() {
        if (spinel != null) {
            spinel.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    @Test
    @Timeout(30)
    void infoCountsABlockingCommandSentBeforeIt() throws Exception {
        String expected = blockedClients(redis.port());
        assertEquals("blocked_clients:1", expected);
        assertEquals(expected, blockedClients(spinel.port()));
    }

    @Test
    @Timeout(30)
    void clientListShowsANameSetBeforeIt() throws Exception {
        assertTrue(nameSeen(redis.port()));
        assertTrue(nameSeen(spinel.port()), "CLIENT LIST did not show the name set just before it");
    }

    @Test
    @Timeout(30)
    void aLoopBusyWithALongCommandHoldsInfoBackOnlyForASecond() throws Exception {
        // Spinel's own bound (Redis, on one thread, answers after the command): two adjacent connections are on
        // different loops
        try (RawClient busy = new RawClient(spinel.port()); RawClient asker = new RawClient(spinel.port())) {
            accepted(busy, asker);
            CountDownLatch held = LoopHolder.hold(spinel, busy, 3000); // a long command there (DEBUG SLEEP holds every loop)
            busy.send(bytes("PING")); // read by its loop only after the hold
            long start = System.nanoTime();
            String info = new String(asker.call("INFO", "clients"), StandardCharsets.UTF_8);
            long millis = (System.nanoTime() - start) / 1_000_000;
            assertTrue(info.contains("connected_clients:"), info);
            assertTrue(millis < 2500, "INFO took " + millis + " ms");
            held.await();
            busy.readReply();
        }
    }

    private static String blockedClients(int port) throws IOException {
        try (RawClient busy = new RawClient(port); RawClient asker = new RawClient(port); RawClient blocked = new RawClient(port)) {
            accepted(busy, asker, blocked);
            busy.send(bytes("DEBUG", "SLEEP", "0.3"));
            blocked.send(bytes("BLPOP", "catch-up-list", "0"));
            String info = new String(asker.call("INFO", "clients"), StandardCharsets.UTF_8);
            busy.readReply();
            for (String line : info.split("\r\n")) {
                if (line.startsWith("blocked_clients:")) {
                    return line;
                }
            }
            throw new AssertionError("no blocked_clients in " + info);
        }
    }

    private static boolean nameSeen(int port) throws IOException {
        try (RawClient busy = new RawClient(port); RawClient asker = new RawClient(port); RawClient named = new RawClient(port)) {
            accepted(busy, asker, named);
            busy.send(bytes("DEBUG", "SLEEP", "0.3"));
            named.send(bytes("CLIENT", "SETNAME", "set-before"));
            String list = new String(asker.call("CLIENT", "LIST"), StandardCharsets.UTF_8);
            busy.readReply();
            return list.contains(" name=set-before ");
        }
    }

    /** Each connection answered once: the server has accepted them all (Redis reads a new one's input only then). */
    private static void accepted(RawClient... clients) throws IOException {
        for (RawClient c : clients) {
            assertEquals("+PONG\r\n", c.callString("PING"));
        }
    }

    private static List<byte[]> bytes(String... args) {
        return Arrays.stream(args).map(s -> s.getBytes(StandardCharsets.UTF_8)).toList();
    }
}
