package dev.spinel.server.blocking;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Pops made for clients served after blocking reach the append-only log (as LPOP, RPOP, LMOVE, ZPOPMIN,
 * ZPOPMAX, as Redis propagates them), so a restart does not bring the popped elements back; collection
 * writes made directly are logged too.
 */
class BlockedPopAofTest {
    @TempDir
    Path dir;

    private SpinelServer start() {
        return SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", dir.toString())
                .with("appendonly", "yes").with("appendfsync", "always").with("event-loop-threads", "2"));
    }

    private static void awaitBlocked(SpinelServer server, int n) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (server.engine().blocking().blockedClients() != n) {
            if (System.nanoTime() > end) {
                throw new AssertionError("blocked_clients stayed " + server.engine().blocking().blockedClients());
            }
            Thread.sleep(2);
        }
    }

    private static List<byte[]> cmd(String... a) {
        List<byte[]> l = new ArrayList<>();
        for (String s : a) {
            l.add(s.getBytes(StandardCharsets.UTF_8));
        }
        return l;
    }

    private static String served(SpinelServer server, RawClient c, RawClient p, String[] block, String... feed)
            throws Exception {
        c.send(cmd(block));
        awaitBlocked(server, 1);
        p.call(feed);
        String r = new String(c.readReply(), StandardCharsets.UTF_8);
        awaitBlocked(server, 0);
        return r;
    }

    private static String state(RawClient c) throws Exception {
        return c.callString("ZRANGE", "z", "0", "-1", "WITHSCORES") + c.callString("LRANGE", "l", "0", "-1")
                + c.callString("LRANGE", "src", "0", "-1")
                + c.callString("ZRANGE", "z2", "0", "-1") + c.callString("LRANGE", "l2", "0", "-1") + c.callString("LRANGE", "dst", "0", "-1")
                + c.callString("HGETALL", "h") + c.callString("SMEMBERS", "s");
    }

    @Test
    void servedPopsSurviveARestartAsPops() throws Exception {
        String before;
        try (SpinelServer server = start(); RawClient c = new RawClient(server.port()); RawClient p = new RawClient(server.port())) {
            served(server, c, p, new String[] {"BZPOPMIN", "z", "0"}, "ZADD", "z", "1", "a", "2", "b", "3", "c");
            served(server, c, p, new String[] {"BZMPOP", "0", "1", "z2", "MAX", "COUNT", "1"}, "ZADD", "z2", "8", "y", "9", "x");
            served(server, c, p, new String[] {"BLPOP", "l", "0"}, "RPUSH", "l", "1", "2", "3");
            served(server, c, p, new String[] {"BLMPOP", "0", "1", "l2", "RIGHT", "COUNT", "1"}, "RPUSH", "l2", "4", "5");
            served(server, c, p, new String[] {"BLMOVE", "src", "dst", "LEFT", "RIGHT", "0"}, "RPUSH", "src", "m", "n");
            p.call("HSET", "h", "f", "v");
            p.call("SADD", "s", "m");
            before = state(p);
            assertEquals("*4\r\n$1\r\nb\r\n$1\r\n2\r\n$1\r\nc\r\n$1\r\n3\r\n", p.callString("ZRANGE", "z", "0", "-1", "WITHSCORES"));
        }
        try (SpinelServer server = start(); RawClient p = new RawClient(server.port())) {
            assertEquals(before, state(p));
        }
    }
}
