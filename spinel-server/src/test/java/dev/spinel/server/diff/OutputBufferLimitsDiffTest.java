package dev.spinel.server.diff;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@code client-output-buffer-limit normal ...} against redis-server, after the cases of Redis 7.0.15's
 * tests/unit/obuf-limits.tcl: each scenario runs on both servers and yields a transcript of what a
 * client can observe (whether the limited client was closed, whether it was sent anything, which of
 * its writes took effect); the transcripts must be identical, and Redis's must show the limit at work.
 */
class OutputBufferLimitsDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    private interface Scenario {
        void run(int port, RawClient admin, List<String> out) throws Exception;
    }

    /** Runs the scenario on both servers (the limit reset afterwards); returns Redis's transcript. */
    private static String same(Scenario scenario) throws Exception {
        String redis = transcript(SERVERS.redis().port(), scenario);
        String spinel = transcript(SERVERS.spinel().port(), scenario);
        assertEquals(redis, spinel);
        return redis;
    }

    private static String transcript(int port, Scenario scenario) throws Exception {
        List<String> out = new ArrayList<>();
        try (RawClient admin = new RawClient(port)) {
            admin.call("FLUSHALL");
            try {
                scenario.run(port, admin, out);
            } finally {
                admin.call("CONFIG", "SET", "client-output-buffer-limit", "normal 0 0 0");
            }
        }
        return String.join("\n", out);
    }

    private static String s(byte[] reply) {
        return new String(reply, StandardCharsets.UTF_8);
    }

    /** True once no client named {@code name} is in CLIENT LIST (polled for up to 3 s). */
    private static boolean gone(RawClient admin, String name) throws Exception {
        long deadline = System.currentTimeMillis() + 3000;
        while (System.currentTimeMillis() < deadline) {
            if (!s(admin.call("CLIENT", "LIST")).contains("name=" + name + " ")) {
                return true;
            }
            Thread.sleep(20);
        }
        return false;
    }

    private static void fillList(RawClient admin, String key, int items, int size) throws IOException {
        String item = "x".repeat(size);
        for (int i = 0; i < items; i++) {
            admin.call("RPUSH", key, item);
        }
    }

    @Test
    void noResponseForSingleCommandPastTheHardLimit() throws Exception {
        String t = same((port, admin, out) -> {
            admin.call("CONFIG", "SET", "client-output-buffer-limit", "normal 100000 0 0");
            fillList(admin, "mylist", 150, 1000);
            try (RawClient c = new RawClient(port)) {
                out.add(s(c.call("CLIENT", "SETNAME", "mybiglist")));
                c.send(List.of("LRANGE".getBytes(), "mylist".getBytes(), "0".getBytes(), "-1".getBytes()));
                out.add("gone " + gone(admin, "mybiglist"));
                out.add("closed without a byte " + c.isClosedByServer());
            }
            out.add("server answers " + s(admin.call("PING")));
        });
        assertEquals("+OK\r\n\ngone true\nclosed without a byte true\nserver answers +PONG\r\n", t);
    }

    @Test
    void noResponseForPipelinePastTheHardLimitAndTheRestIsNotExecuted() throws Exception {
        String t = same((port, admin, out) -> {
            admin.call("CONFIG", "SET", "client-output-buffer-limit", "normal 100000 0 0");
            admin.call("SET", "bigkey", "x".repeat(10000));
            try (RawClient c = new RawClient(port)) {
                out.add(s(c.call("CLIENT", "SETNAME", "multicommands")));
                StringBuilder pipeline = new StringBuilder();
                for (int i = 0; i < 15; i++) {
                    pipeline.append("set k").append(i).append(' ').append(i).append("\r\n");
                    pipeline.append("get bigkey\r\n");
                }
                c.sendRaw(pipeline.toString().getBytes(StandardCharsets.US_ASCII)); // one write, one read
                out.add("gone " + gone(admin, "multicommands"));
                out.add("closed without a byte " + c.isClosedByServer());
            }
            // 10 KB a GET: the 10th passes 100000 bytes; the SETs after it never ran
            for (int i = 0; i < 15; i++) {
                out.add("k" + i + " " + s(admin.call("GET", "k" + i)).trim());
            }
        });
        assertEquals(true, t.contains("k9 $1\r\n9") && t.contains("k14 $-1"), t);
    }

    @Test
    void transactionRunsCompletelyEvenPastTheLimit() throws Exception {
        String t = same((port, admin, out) -> {
            admin.call("CONFIG", "SET", "client-output-buffer-limit", "normal 100000 0 0");
            fillList(admin, "mylist2", 150, 1000);
            try (RawClient c = new RawClient(port)) {
                c.call("CLIENT", "SETNAME", "transactionclient");
                c.call("SET", "k1", "v1");
                c.call("MULTI");
                c.call("SET", "k2", "v2");
                c.call("GET", "k2");
                c.call("LRANGE", "mylist2", "0", "-1");
                c.call("SET", "k3", "v3");
                c.call("DEL", "k1");
                c.send(List.of("EXEC".getBytes()));
                out.add("closed without a byte " + c.isClosedByServer());
            }
            out.add("gone " + gone(admin, "transactionclient"));
            out.add(s(admin.call("GET", "k1")) + s(admin.call("GET", "k2")) + s(admin.call("GET", "k3")));
        });
        assertEquals("closed without a byte true\ngone true\n$-1\r\n$2\r\nv2\r\n$2\r\nv3\r\n", t);
    }

    @Test
    void hrandfieldWithHugeCountStoppedMidRun() throws Exception {
        String t = same((port, admin, out) -> {
            admin.call("CONFIG", "SET", "client-output-buffer-limit", "normal 1000000 0 0");
            admin.call("HSET", "myhash", "a", "b");
            try (RawClient c = new RawClient(port)) {
                c.send(List.of("HRANDFIELD".getBytes(), "myhash".getBytes(), "-999999999".getBytes()));
                out.add("closed without a byte " + c.isClosedByServer());
            }
            out.add("server answers " + s(admin.call("PING")));
        });
        assertEquals("closed without a byte true\nserver answers +PONG\r\n", t);
    }

    @Test
    void keysStoppedPastTheLimit() throws Exception {
        String t = same((port, admin, out) -> {
            admin.call("CONFIG", "SET", "client-output-buffer-limit", "normal 100000 0 0");
            String prefix = "long-key-name-prefix-of-100-chars-" + "-".repeat(66);
            for (int i = 0; i < 1000; i++) {
                admin.call("SET", prefix + i, "v");
            }
            try (RawClient c = new RawClient(port)) {
                c.send(List.of("KEYS".getBytes(), "*".getBytes()));
                out.add("closed without a byte " + c.isClosedByServer());
            }
        });
        assertEquals("closed without a byte true", t);
    }

    /** Without a limit (the default) the same large replies are sent, and a reader past them is kept. */
    @Test
    void noLimitByDefault() throws Exception {
        String t = same((port, admin, out) -> {
            out.add(s(admin.call("CONFIG", "GET", "client-output-buffer-limit")));
            fillList(admin, "mylist", 150, 1000);
            try (RawClient c = new RawClient(port)) {
                out.add("reply bytes " + c.call("LRANGE", "mylist", "0", "-1").length);
                out.add(s(c.call("PING")));
            }
        });
        assertEquals(true, t.contains("reply bytes 151") && t.endsWith("+PONG\r\n"), t);
    }

    /** CONFIG SET applies to connected clients: a limit set after they connected holds them too. */
    @Test
    void limitSetLaterAppliesToConnectedClients() throws Exception {
        String t = same((port, admin, out) -> {
            fillList(admin, "mylist", 150, 1000);
            try (RawClient c = new RawClient(port)) {
                out.add("first " + c.call("LRANGE", "mylist", "0", "-1").length);
                admin.call("CONFIG", "SET", "client-output-buffer-limit", "normal 100000 0 0");
                c.send(List.of("LRANGE".getBytes(), "mylist".getBytes(), "0".getBytes(), "-1".getBytes()));
                out.add("then closed " + c.isClosedByServer());
            }
        });
        assertEquals(true, t.endsWith("then closed true"), t);
    }

    /**
     * A client that keeps sending GETs without reading passes the soft limit and is closed once it has
     * stayed over it longer than its seconds; one that reads its replies is not.
     */
    @Test
    void softLimitClosesAClientThatStaysOverIt() throws Exception {
        String t = same((port, admin, out) -> {
            admin.call("CONFIG", "SET", "client-output-buffer-limit", "normal 0 100000 1");
            admin.call("SET", "bigkey", "x".repeat(10000));
            try (RawClient reader = new RawClient(port); RawClient slow = new RawClient(port)) {
                slow.call("CLIENT", "SETNAME", "slowreader");
                byte[] gets = "get bigkey\r\n".repeat(20).getBytes(StandardCharsets.US_ASCII);
                long deadline = System.currentTimeMillis() + 20_000;
                boolean closed = false;
                while (!closed && System.currentTimeMillis() < deadline) {
                    try {
                        slow.sendRaw(gets);
                    } catch (IOException e) {
                        closed = true; // reset by the server
                    }
                    for (int i = 0; i < 20; i++) {
                        reader.call("GET", "bigkey");
                    }
                    closed |= !s(admin.call("CLIENT", "LIST")).contains("name=slowreader ");
                    Thread.sleep(50);
                }
                out.add("slow reader closed " + closed);
                out.add("reader kept " + s(reader.call("PING")));
            }
        });
        assertEquals("slow reader closed true\nreader kept +PONG\r\n", t);
    }
}
