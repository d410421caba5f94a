package dev.spinel.server.blocking;


import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static dev.spinel.server.blocking.BlockingTestSupport.bulk;
import static dev.spinel.server.blocking.BlockingTestSupport.cmd;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * BZPOPMIN, BZPOPMAX and BZMPOP where a script cannot reach: first-come-first-served service of clients
 * on two event loops, timeouts, wake-ups by ZADD, ZINCRBY and ZUNIONSTORE from another client, a key
 * of the wrong type that keeps the client waiting, CLIENT UNBLOCK, and keys that arrive by RENAME, COPY,
 * MOVE, SWAPDB or SORT ... STORE waking list and sorted-set waiters (Redis's signalKeyAsReady in dbAdd).
 */
class BlockingZSetTest {
    private static SpinelServer server;

    @BeforeAll
    static void start() {
        server = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("event-loop-threads", "2"));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static void awaitBlocked(int n) throws InterruptedException {
        BlockingTestSupport.awaitBlocked(server.engine().blocking(), n);
    }

    private static String reply(RawClient c) throws Exception {
        return new String(c.readReply(), StandardCharsets.UTF_8);
    }

    @Test
    void waitersAreServedFirstComeFirstServedByAZaddOnAnotherLoop() throws Exception {
        List<RawClient> clients = new ArrayList<>();
        try (RawClient p = new RawClient(server.port())) {
            p.call("DEL", "zfifo");
            for (int i = 0; i < 4; i++) {
                RawClient c = new RawClient(server.port()); // connections alternate between the two loops
                clients.add(c);
                c.send(cmd(i % 2 == 0 ? "BZPOPMIN" : "BZPOPMAX", "zother", "zfifo", "0"));
                awaitBlocked(i + 1);
            }
            assertEquals(":4\r\n", p.callString("ZADD", "zfifo", "1", "a", "2", "b", "3", "c", "4", "d"));
            String[][] expected = {{"a", "1"}, {"d", "4"}, {"b", "2"}, {"c", "3"}};
            for (int i = 0; i < 4; i++) {
                assertEquals("*3\r\n" + bulk("zfifo") + bulk(expected[i][0]) + bulk(expected[i][1]), reply(clients.get(i)));
            }
            awaitBlocked(0);
            assertEquals(":0\r\n", p.callString("EXISTS", "zfifo"), "emptied sorted set deleted");
        } finally {
            for (RawClient c : clients) {
                c.close();
            }
        }
    }

    @Test
    void oneZaddServesOnlyAsManyWaitersAsItHasMembers() throws Exception {
        try (RawClient a = new RawClient(server.port()); RawClient b = new RawClient(server.port());
             RawClient p = new RawClient(server.port())) {
            a.send(cmd("BZPOPMIN", "zfew", "0"));
            awaitBlocked(1);
            b.send(cmd("BZMPOP", "0", "1", "zfew", "MAX", "COUNT", "5"));
            awaitBlocked(2);
            p.call("ZADD", "zfew", "1", "x");
            assertEquals("*3\r\n" + bulk("zfew") + bulk("x") + bulk("1"), reply(a));
            awaitBlocked(1);
            p.call("ZADD", "zfew", "1", "y", "2", "z");
            assertEquals("*2\r\n" + bulk("zfew") + "*2\r\n*2\r\n" + bulk("z") + bulk("2") + "*2\r\n" + bulk("y") + bulk("1"),
                    reply(b));
            awaitBlocked(0);
        }
    }

    @Test
    void timeoutAnswersANullArray() throws Exception {
        try (RawClient c = new RawClient(server.port())) {
            long t0 = System.nanoTime();
            assertEquals("*-1\r\n", c.callString("BZPOPMIN", "znever", "0.2"));
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(ms >= 200 && ms < 450, "timed out after " + ms + " ms");
            assertEquals("*-1\r\n", c.callString("BZMPOP", "0.05", "2", "znever", "znever2", "MIN"));
            assertEquals(0, server.engine().blocking().blockedClients());
        }
    }

    @Test
    void zincrbyAndZunionstoreWakeWaitersAndOtherTypesDoNot() throws Exception {
        try (RawClient c = new RawClient(server.port()); RawClient p = new RawClient(server.port())) {
            p.call("DEL", "zinc", "zsrc", "zdst");
            c.send(cmd("BZPOPMAX", "zinc", "0"));
            awaitBlocked(1);
            p.call("RPUSH", "zinc", "not-a-zset"); // wrong type: keeps waiting, as Redis
            p.call("DEL", "zinc");
            assertEquals(1, server.engine().blocking().blockedClients());
            p.call("ZINCRBY", "zinc", "2.5", "m");
            assertEquals("*3\r\n" + bulk("zinc") + bulk("m") + bulk("2.5"), reply(c));
            awaitBlocked(0);

            c.send(cmd("BZPOPMIN", "zdst", "0"));
            awaitBlocked(1);
            p.call("ZADD", "zsrc", "7", "u");
            assertEquals(":1\r\n", p.callString("ZUNIONSTORE", "zdst", "1", "zsrc"));
            assertEquals("*3\r\n" + bulk("zdst") + bulk("u") + bulk("7"), reply(c));
            awaitBlocked(0);
        }
    }

    @Test
    void clientUnblockEndsTheWaitAndInfoCountsBlockedClients() throws Exception {
        try (RawClient c = new RawClient(server.port()); RawClient p = new RawClient(server.port())) {
            String id = c.callString("CLIENT", "ID").substring(1).trim();
            c.send(cmd("BZPOPMIN", "zunb", "0"));
            awaitBlocked(1);
            assertTrue(p.callString("INFO", "clients").contains("blocked_clients:1\r\n"));
            assertTrue(p.callString("CLIENT", "LIST", "ID", id).contains(" flags=b "));
            assertEquals(":1\r\n", p.callString("CLIENT", "UNBLOCK", id));
            assertEquals("*-1\r\n", reply(c));
            awaitBlocked(0);
            assertTrue(p.callString("INFO", "clients").contains("blocked_clients:0\r\n"));
            assertTrue(p.callString("CLIENT", "LIST", "ID", id).contains(" flags=N "));
            assertEquals(":0\r\n", p.callString("CLIENT", "UNBLOCK", id), "not blocked any more");

            c.send(cmd("BZMPOP", "0", "1", "zunb", "MAX"));
            awaitBlocked(1);
            assertEquals(":1\r\n", p.callString("CLIENT", "UNBLOCK", id, "error"));
            assertEquals("-UNBLOCKED client unblocked via CLIENT UNBLOCK\r\n", reply(c));
            awaitBlocked(0);

            c.send(cmd("BLPOP", "lunb", "0"));
            awaitBlocked(1);
            assertEquals(":1\r\n", p.callString("CLIENT", "UNBLOCK", id, "TIMEOUT"));
            assertEquals("*-1\r\n", reply(c));
            assertEquals("+PONG\r\n", c.callString("PING"));
            p.call("ZADD", "zunb", "1", "a");
            assertEquals(":1\r\n", p.callString("ZCARD", "zunb"), "nobody took the member");
        }
    }

    @Test
    void keysArrivingByRenameCopyMoveSwapdbOrSortStoreWakeWaiters() throws Exception {
        try (RawClient c = new RawClient(server.port()); RawClient p = new RawClient(server.port())) {
            p.call("FLUSHALL");
            p.call("ZADD", "ztmp", "1", "r");
            c.send(cmd("BZPOPMIN", "zren", "0"));
            awaitBlocked(1);
            p.call("RENAME", "ztmp", "zren");
            assertEquals("*3\r\n" + bulk("zren") + bulk("r") + bulk("1"), reply(c));
            awaitBlocked(0);

            p.call("RPUSH", "ltmp", "c");
            c.send(cmd("BLPOP", "lcopy", "0"));
            awaitBlocked(1);
            p.call("COPY", "ltmp", "lcopy");
            assertEquals("*2\r\n" + bulk("lcopy") + bulk("c"), reply(c));
            awaitBlocked(0);

            p.call("SELECT", "1");
            p.call("ZADD", "zmove", "5", "m");
            c.send(cmd("BZPOPMAX", "zmove", "0"));
            awaitBlocked(1);
            p.call("MOVE", "zmove", "0");
            assertEquals("*3\r\n" + bulk("zmove") + bulk("m") + bulk("5"), reply(c));
            awaitBlocked(0);

            p.call("SELECT", "0");
            p.call("RPUSH", "lsrc", "3", "1", "2");
            c.send(cmd("BLPOP", "lsorted", "0"));
            awaitBlocked(1);
            assertEquals(":3\r\n", p.callString("SORT", "lsrc", "STORE", "lsorted"));
            assertEquals("*2\r\n" + bulk("lsorted") + bulk("1"), reply(c));
            awaitBlocked(0);

            p.call("SELECT", "2");
            p.call("ZADD", "zswap", "3", "s");
            c.send(cmd("BZPOPMIN", "zswap", "0")); // c is in db 0
            awaitBlocked(1);
            assertEquals("+OK\r\n", p.callString("SWAPDB", "0", "2"));
            assertEquals("*3\r\n" + bulk("zswap") + bulk("s") + bulk("3"), reply(c));
            awaitBlocked(0);
            p.call("SELECT", "0");
            p.call("FLUSHALL");
        }
    }

    @Test
    void aServedWaiterAnnouncesItsPopAfterTheWriteThatFedIt() throws Exception {
        try (RawClient c = new RawClient(server.port()); RawClient p = new RawClient(server.port());
             RawClient sub = new RawClient(server.port())) {
            p.call("CONFIG", "SET", "notify-keyspace-events", "Egzl");
            try {
                sub.call("PSUBSCRIBE", "__keyevent@0__:*");
                c.send(cmd("BZPOPMAX", "zev", "0"));
                awaitBlocked(1);
                p.call("ZADD", "zev", "1", "a");
                assertEquals("*3\r\n" + bulk("zev") + bulk("a") + bulk("1"), reply(c));
                c.send(cmd("BLPOP", "lev", "0"));
                awaitBlocked(1);
                p.call("RPUSH", "lev", "x");
                assertEquals("*2\r\n" + bulk("lev") + bulk("x"), reply(c));
                String[] expected = {"zadd", "zpopmax", "del", "rpush", "lpop", "del"};
                String[] keys = {"zev", "zev", "zev", "lev", "lev", "lev"};
                for (int i = 0; i < expected.length; i++) {
                    String ch = "__keyevent@0__:" + expected[i];
                    assertEquals("*4\r\n" + bulk("pmessage") + bulk("__keyevent@0__:*") + bulk(ch) + bulk(keys[i]), reply(sub));
                }
            } finally {
                p.call("CONFIG", "SET", "notify-keyspace-events", "");
            }
        }
    }
}
