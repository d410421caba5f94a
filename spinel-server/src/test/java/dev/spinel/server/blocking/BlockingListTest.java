package dev.spinel.server.blocking;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.engine.Blocking;
import dev.spinel.server.engine.Session;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static dev.spinel.server.blocking.BlockingTestSupport.bulk;
import static dev.spinel.server.blocking.BlockingTestSupport.cmd;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Blocking list commands where a script cannot reach: FIFO service of several blocked clients spread
 * over two event loops, timeout precision, pipelined input held back while blocked, clients that
 * leave while blocked, BLMOVE chains, CLIENT UNBLOCK's hook, and a concurrent stress run in which
 * every pushed element must be received exactly once.
 */
class BlockingListTest {
    private static SpinelServer server;

    @BeforeAll
    static void start() {
        server = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("event-loop-threads", "2"));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static Blocking blocking() {
        return server.engine().blocking();
    }

    private static void awaitBlocked(int n) throws InterruptedException {
        BlockingTestSupport.awaitBlocked(server.engine().blocking(), n);
    }

    @Test
    void blockedClientsAreServedFirstComeFirstServed() throws Exception {
        List<RawClient> clients = new ArrayList<>();
        try (RawClient pusher = new RawClient(server.port())) {
            pusher.call("DEL", "fifo");
            for (int i = 0; i < 5; i++) {
                RawClient c = new RawClient(server.port()); // connections alternate between the two loops
                clients.add(c);
                c.send(cmd("BLPOP", "fifo", "0"));
                awaitBlocked(i + 1);
            }
            assertEquals(":5\r\n", pusher.callString("RPUSH", "fifo", "a", "b", "c", "d", "e"));
            String[] expected = {"a", "b", "c", "d", "e"};
            for (int i = 0; i < 5; i++) {
                assertEquals("*2\r\n" + bulk("fifo") + bulk(expected[i]),
                        new String(clients.get(i).readReply(), StandardCharsets.UTF_8));
            }
            awaitBlocked(0);
            assertEquals(":0\r\n", pusher.callString("LLEN", "fifo"));
        } finally {
            for (RawClient c : clients) {
                c.close();
            }
        }
    }

    @Test
    void aPushServesOnlyAsManyWaitersAsItHasElements() throws Exception {
        try (RawClient a = new RawClient(server.port()); RawClient b = new RawClient(server.port());
             RawClient p = new RawClient(server.port())) {
            a.send(cmd("BRPOP", "few", "0"));
            awaitBlocked(1);
            b.send(cmd("BRPOP", "few", "0"));
            awaitBlocked(2);
            p.call("LPUSH", "few", "x");
            assertEquals("*2\r\n" + bulk("few") + bulk("x"), new String(a.readReply(), StandardCharsets.UTF_8));
            awaitBlocked(1);
            p.call("LPUSH", "few", "y");
            assertEquals("*2\r\n" + bulk("few") + bulk("y"), new String(b.readReply(), StandardCharsets.UTF_8));
            awaitBlocked(0);
        }
    }

    @Test
    void timeoutsHaveMillisecondPrecision() throws Exception {
        try (RawClient c = new RawClient(server.port())) {
            long t0 = System.nanoTime();
            assertEquals("*-1\r\n", c.callString("BLPOP", "never", "0.25"));
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(ms >= 250 && ms < 450, "timed out after " + ms + " ms");
            t0 = System.nanoTime();
            assertEquals("*-1\r\n", c.callString("BLMOVE", "never", "dst", "LEFT", "RIGHT", "0.05"));
            ms = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(ms >= 50 && ms < 250, "timed out after " + ms + " ms");
            assertEquals(0, blocking().blockedClients());
        }
    }

    @Test
    void pipelinedCommandsWaitBehindABlockedOne() throws Exception {
        try (RawClient c = new RawClient(server.port()); RawClient p = new RawClient(server.port())) {
            byte[] pipeline = (new String(RawClient.encode(cmd("BLPOP", "pipe", "0")), StandardCharsets.UTF_8)
                    + new String(RawClient.encode(cmd("PING")), StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8);
            c.sendRaw(pipeline);
            awaitBlocked(1);
            Thread.sleep(50);
            p.call("RPUSH", "pipe", "v");
            assertEquals("*2\r\n" + bulk("pipe") + bulk("v"), new String(c.readReply(), StandardCharsets.UTF_8));
            assertEquals("+PONG\r\n", new String(c.readReply(), StandardCharsets.UTF_8));
        }
    }

    @Test
    void aClientThatLeavesWhileBlockedLeavesNothingBehind() throws Exception {
        try (RawClient p = new RawClient(server.port())) {
            p.call("DEL", "gone");
            RawClient c = new RawClient(server.port());
            c.send(cmd("BLPOP", "gone", "0"));
            awaitBlocked(1);
            c.close();
            awaitBlocked(0);
            assertEquals(":1\r\n", p.callString("RPUSH", "gone", "kept"));
            assertEquals(":1\r\n", p.callString("LLEN", "gone"), "nobody took the element");
        }
    }

    @Test
    void blmoveServesTheWaitersOfItsDestinationToo() throws Exception {
        try (RawClient mover = new RawClient(server.port()); RawClient popper = new RawClient(server.port());
             RawClient p = new RawClient(server.port())) {
            p.call("DEL", "msrc", "mdst");
            mover.send(cmd("BLMOVE", "msrc", "mdst", "LEFT", "RIGHT", "0"));
            awaitBlocked(1);
            popper.send(cmd("BLPOP", "mdst", "0"));
            awaitBlocked(2);
            p.call("RPUSH", "msrc", "hop");
            assertEquals(bulk("hop"), new String(mover.readReply(), StandardCharsets.UTF_8));
            assertEquals("*2\r\n" + bulk("mdst") + bulk("hop"), new String(popper.readReply(), StandardCharsets.UTF_8));
            awaitBlocked(0);
            assertEquals(":0\r\n", p.callString("LLEN", "mdst"));
        }
    }

    @Test
    void blmpopIsServedWithUpToCountElements() throws Exception {
        try (RawClient c = new RawClient(server.port()); RawClient p = new RawClient(server.port())) {
            p.call("DEL", "ma", "mb");
            c.send(cmd("BLMPOP", "0", "2", "ma", "mb", "RIGHT", "COUNT", "2"));
            awaitBlocked(1);
            p.call("RPUSH", "mb", "x", "y", "z");
            assertEquals("*2\r\n" + bulk("mb") + "*2\r\n" + bulk("z") + bulk("y"),
                    new String(c.readReply(), StandardCharsets.UTF_8));
            assertEquals("*1\r\n" + bulk("x"), p.callString("LRANGE", "mb", "0", "-1"));
        }
    }

    @Test
    void blmoveToAKeyOfTheWrongTypeFailsAndKeepsTheElement() throws Exception {
        try (RawClient c = new RawClient(server.port()); RawClient p = new RawClient(server.port())) {
            p.call("DEL", "wsrc", "wdst");
            c.send(cmd("BLMOVE", "wsrc", "wdst", "LEFT", "RIGHT", "0"));
            awaitBlocked(1);
            p.call("SET", "wdst", "str");
            p.call("RPUSH", "wsrc", "a", "b");
            assertEquals("-WRONGTYPE Operation against a key holding the wrong kind of value\r\n",
                    new String(c.readReply(), StandardCharsets.UTF_8));
            assertEquals("*2\r\n" + bulk("a") + bulk("b"), p.callString("LRANGE", "wsrc", "0", "-1"));
            awaitBlocked(0);
        }
    }

    @Test
    void waitersAreServedOnlyByTheirOwnDatabase() throws Exception {
        try (RawClient c = new RawClient(server.port()); RawClient p = new RawClient(server.port())) {
            c.call("SELECT", "1");
            p.call("DEL", "dbkey");
            c.send(cmd("BLPOP", "dbkey", "0"));
            awaitBlocked(1);
            p.call("RPUSH", "dbkey", "in-db0");
            Thread.sleep(50);
            assertEquals(1, blocking().blockedClients());
            p.call("SELECT", "1");
            p.call("RPUSH", "dbkey", "in-db1");
            assertEquals("*2\r\n" + bulk("dbkey") + bulk("in-db1"), new String(c.readReply(), StandardCharsets.UTF_8));
            assertEquals(":0\r\n", p.callString("LLEN", "dbkey"), "db 1 list emptied and deleted");
            p.call("SELECT", "0");
            assertEquals(":1\r\n", p.callString("LLEN", "dbkey"));
            p.call("DEL", "dbkey");
        }
    }

    @Test
    void unblockEndsTheWaitWithATimeoutOrAnError() throws Exception {
        try (RawClient c = new RawClient(server.port())) {
            c.send(cmd("BLPOP", "unb", "0"));
            awaitBlocked(1);
            long id = blockedSessionId();
            assertTrue(blocking().unblock(id, false));
            assertEquals("*-1\r\n", new String(c.readReply(), StandardCharsets.UTF_8));
            c.send(cmd("BRPOPLPUSH", "unb", "x", "0"));
            awaitBlocked(1);
            assertTrue(blocking().unblock(blockedSessionId(), true));
            assertEquals("-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n", new String(c.readReply(), StandardCharsets.UTF_8));
            assertEquals(false, blocking().unblock(id, true), "not blocked any more");
            assertEquals("+PONG\r\n", c.callString("PING"));
        }
    }

    private static long blockedSessionId() {
        for (Session s : server.engine().clients().all()) {
            if (blocking().isBlocked(s.id())) {
                return s.id();
            }
        }
        throw new AssertionError("no blocked session");
    }

    @Test
    void everyElementIsReceivedExactlyOnceUnderConcurrency() throws Exception {
        int consumers = 6;
        int producers = 3;
        int perProducer = 400;
        Set<String> received = ConcurrentHashMap.newKeySet();
        List<String> duplicates = Collections.synchronizedList(new ArrayList<>());
        ExecutorService pool = Executors.newFixedThreadPool(consumers + producers);
        try {
            List<Future<?>> fs = new ArrayList<>();
            for (int i = 0; i < consumers; i++) {
                fs.add(pool.submit(() -> {
                    try (RawClient c = new RawClient(server.port())) {
                        while (true) {
                            String r = new String(c.call(cmd("BLPOP", "stress1", "stress2", "0.3")), StandardCharsets.UTF_8);
                            if (r.equals("*-1\r\n")) {
                                return null;
                            }
                            String v = r.substring(r.lastIndexOf("$"));
                            if (!received.add(v)) {
                                duplicates.add(v);
                            }
                        }
                    }
                }));
            }
            for (int p = 0; p < producers; p++) {
                int id = p;
                fs.add(pool.submit(() -> {
                    try (RawClient c = new RawClient(server.port())) {
                        for (int i = 0; i < perProducer; i++) {
                            c.call("RPUSH", i % 2 == 0 ? "stress1" : "stress2", "p" + id + "-" + i);
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : fs) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(List.of(), duplicates);
        assertEquals(producers * perProducer, received.size());
        awaitBlocked(0);
    }
}
