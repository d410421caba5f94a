package dev.spinel.server.blocking;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static dev.spinel.server.blocking.BlockingTestSupport.bulk;
import static dev.spinel.server.blocking.BlockingTestSupport.cmd;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * XREAD BLOCK and XREADGROUP BLOCK where a script cannot reach: clients on two event loops served by an
 * XADD from another connection, only once an entry past their ID arrives; timeouts (RESP2 and RESP3);
 * consumers of one group sharing new entries; a destroyed group answering -NOGROUP; a key of another
 * type that keeps the client waiting; and the stream's state after a served group read.
 */
class BlockingStreamTest {
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

    private static String entry(String key, String id, String... fv) {
        StringBuilder sb = new StringBuilder("*1\r\n*2\r\n" + bulk(key) + "*1\r\n*2\r\n" + bulk(id) + "*" + fv.length + "\r\n");
        for (String s : fv) {
            sb.append(bulk(s));
        }
        return sb.toString();
    }

    @Test
    void xreadWaitersOnTwoLoopsAreAllServedByOneXadd() throws Exception {
        try (RawClient a = new RawClient(server.port()); RawClient b = new RawClient(server.port());
             RawClient p = new RawClient(server.port())) {
            p.call("DEL", "xs");
            a.send(cmd("XREAD", "BLOCK", "0", "STREAMS", "other", "xs", "0", "$"));
            awaitBlocked(1);
            b.send(cmd("XREAD", "COUNT", "5", "BLOCK", "0", "STREAMS", "xs", "$"));
            awaitBlocked(2);
            assertEquals(bulk("1-1"), p.callString("XADD", "xs", "1-1", "f", "v"));
            assertEquals(entry("xs", "1-1", "f", "v"), reply(a));
            assertEquals(entry("xs", "1-1", "f", "v"), reply(b));
            awaitBlocked(0);
            assertEquals(":1\r\n", p.callString("XLEN", "xs"), "XREAD does not consume");
        }
    }

    @Test
    void onlyAnEntryPastTheGivenIdServesTheWaiter() throws Exception {
        try (RawClient a = new RawClient(server.port()); RawClient p = new RawClient(server.port())) {
            p.call("DEL", "xid");
            p.call("XADD", "xid", "5-1", "a", "1");
            a.send(cmd("XREAD", "BLOCK", "0", "STREAMS", "xid", "100-0"));
            awaitBlocked(1);
            p.call("XADD", "xid", "50-1", "a", "2");
            p.call("PING");
            awaitBlocked(1);
            p.call("XADD", "xid", "150-1", "a", "3");
            assertEquals(entry("xid", "150-1", "a", "3"), reply(a));
            awaitBlocked(0);
        }
    }

    @Test
    void timeoutAnswersANullArrayInBothProtocols() throws Exception {
        try (RawClient a = new RawClient(server.port())) {
            assertEquals("*-1\r\n", a.callString("XREAD", "BLOCK", "50", "STREAMS", "xnone", "$"));
            assertEquals("-NOGROUP No such key 'xgnone' or consumer group 'g' in XREADGROUP with GROUP option\r\n",
                    a.callString("XREADGROUP", "GROUP", "g", "c", "BLOCK", "50", "STREAMS", "xgnone", ">"));
            a.call("HELLO", "3");
            assertEquals("_\r\n", a.callString("XREAD", "BLOCK", "50", "STREAMS", "xnone", "$"));
            a.call("XGROUP", "CREATE", "xt", "g", "$", "MKSTREAM");
            assertEquals("_\r\n", a.callString("XREADGROUP", "GROUP", "g", "c", "BLOCK", "50", "STREAMS", "xt", ">"));
            awaitBlocked(0);
        }
    }

    @Test
    void consumersOfOneGroupShareNewEntries() throws Exception {
        try (RawClient a = new RawClient(server.port()); RawClient b = new RawClient(server.port());
             RawClient p = new RawClient(server.port())) {
            p.call("DEL", "xg");
            p.call("XGROUP", "CREATE", "xg", "grp", "$", "MKSTREAM");
            a.send(cmd("XREADGROUP", "GROUP", "grp", "alice", "BLOCK", "0", "STREAMS", "xg", ">"));
            awaitBlocked(1);
            b.send(cmd("XREADGROUP", "GROUP", "grp", "bob", "BLOCK", "0", "STREAMS", "xg", ">"));
            awaitBlocked(2);
            p.call("XADD", "xg", "1-1", "n", "1");
            assertEquals(entry("xg", "1-1", "n", "1"), reply(a));
            awaitBlocked(1);
            p.call("XADD", "xg", "2-1", "n", "2");
            assertEquals(entry("xg", "2-1", "n", "2"), reply(b));
            awaitBlocked(0);
            assertEquals("*4\r\n:2\r\n" + bulk("1-1") + bulk("2-1") + "*2\r\n*2\r\n" + bulk("alice") + bulk("1")
                    + "*2\r\n" + bulk("bob") + bulk("1"), p.callString("XPENDING", "xg", "grp"));
        }
    }

    @Test
    void destroyingTheGroupAnswersNogroup() throws Exception {
        try (RawClient a = new RawClient(server.port()); RawClient p = new RawClient(server.port())) {
            p.call("DEL", "xd");
            p.call("XGROUP", "CREATE", "xd", "grp", "$", "MKSTREAM");
            a.send(cmd("XREADGROUP", "GROUP", "grp", "c", "BLOCK", "0", "STREAMS", "xd", ">"));
            awaitBlocked(1);
            assertEquals(":1\r\n", p.callString("XGROUP", "DESTROY", "xd", "grp"));
            assertEquals("-NOGROUP the consumer group this client was blocked on no longer exists\r\n", reply(a));
            awaitBlocked(0);
        }
    }

    @Test
    void aKeyOfAnotherTypeKeepsTheClientWaiting() throws Exception {
        try (RawClient a = new RawClient(server.port()); RawClient p = new RawClient(server.port())) {
            p.call("DEL", "xw");
            a.send(cmd("XREAD", "BLOCK", "0", "STREAMS", "xw", "$"));
            awaitBlocked(1);
            p.call("RPUSH", "xw", "x");
            p.call("PING");
            awaitBlocked(1);
            p.call("DEL", "xw");
            p.call("XADD", "xw", "7-7", "k", "v");
            assertEquals(entry("xw", "7-7", "k", "v"), reply(a));
            awaitBlocked(0);
        }
    }
}
