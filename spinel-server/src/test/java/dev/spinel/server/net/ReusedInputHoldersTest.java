package dev.spinel.server.net;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static dev.spinel.server.testing.Await.waitFor;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A request's bytes live in buffers its event loop reuses for the next read of any of its connections: the loop's
 * one receive buffer ({@link LoopReadBuffer}) and its query scratch ({@link LoopBuffers}), which the parser's
 * argument slices point into. So whatever outlives its request must have copied what it keeps. Each test below
 * has one client leave something behind (a stored value, a queued transaction, a blocked command, a WATCH, a
 * subscription, a slowlog entry, a cached script, the append-only log, the replication stream), then another client of the same loop sends
 * more than both buffers hold of other bytes ({@link #overwrite}), then checks that what was left behind still says
 * what the first client sent. One event loop, so that every client shares its buffers.
 */
class ReusedInputHoldersTest {
    @TempDir
    Path dir;

    private static ServerConfig oneLoop() {
        return ServerConfig.defaults().with("port", "0").with("event-loop-threads", "1");
    }

    /** A value of {@code n} bytes that says where it came from, unlike the overwrite's 'Z's. */
    private static String held(String tag, int n) {
        StringBuilder sb = new StringBuilder(tag).append(':');
        for (int i = 0; sb.length() < n; i++) {
            sb.append((char) ('a' + i % 26));
        }
        return sb.toString();
    }

    /**
     * One pipelined burst of ~160 KiB (more than the loop's 64 KiB receive buffer and 80 KiB query scratch, so
     * several reads of it cover both from their start) of SETs of 'Z's, all answered before this returns.
     */
    private static void overwrite(int port) throws Exception {
        overwrite(port, true);
    }

    /** {@link #overwrite(int)} with ECHOs instead of SETs ({@code sets} false): for a server that postpones writes. */
    private static void overwrite(int port, boolean sets) throws Exception {
        byte[] junk = new byte[4000];
        Arrays.fill(junk, (byte) 'Z');
        ByteArrayOutputStream burst = new ByteArrayOutputStream();
        int n = 40;
        for (int i = 0; i < n; i++) {
            burst.writeBytes(RawClient.encode(sets
                    ? List.of("SET".getBytes(StandardCharsets.US_ASCII), ("ZZZZ" + i).getBytes(StandardCharsets.US_ASCII), junk)
                    : List.of("ECHO".getBytes(StandardCharsets.US_ASCII), junk)));
        }
        try (RawClient b = new RawClient(port)) {
            b.sendRaw(burst.toByteArray());
            for (int i = 0; i < n; i++) {
                String reply = new String(b.readReply(), StandardCharsets.US_ASCII);
                assertTrue(sets ? reply.equals("+OK\r\n") : reply.startsWith("$4000\r\nZZZZ"), reply);
            }
        }
    }

    private static String bulk(String s) {
        return "$" + s.length() + "\r\n" + s + "\r\n";
    }

    @Test
    void storedKeysFieldsAndMembers() throws Exception {
        try (SpinelServer server = SpinelServer.start(oneLoop()); RawClient a = new RawClient(server.port())) {
            String key = held("string-key", 40);
            String value = held("string-value", 3000);
            assertEquals("+OK\r\n", a.callString("SET", key, value));
            assertEquals(":1\r\n", a.callString("HSET", "hash", held("field", 30), held("hvalue", 200)));
            assertEquals(":1\r\n", a.callString("RPUSH", "list", held("element", 200)));
            assertEquals(":1\r\n", a.callString("SADD", "set", held("member", 60)));
            assertEquals(":1\r\n", a.callString("ZADD", "zset", "1", held("zmember", 60)));
            overwrite(server.port());
            assertEquals(bulk(value), a.callString("GET", key));
            assertEquals(bulk(held("hvalue", 200)), a.callString("HGET", "hash", held("field", 30)));
            assertEquals("*1\r\n" + bulk(held("element", 200)), a.callString("LRANGE", "list", "0", "-1"));
            assertEquals("*1\r\n" + bulk(held("member", 60)), a.callString("SMEMBERS", "set"));
            assertEquals("*1\r\n" + bulk(held("zmember", 60)), a.callString("ZRANGE", "zset", "0", "-1"));
            assertEquals("*1\r\n" + bulk(key), a.callString("KEYS", "string-key*"));
        }
    }

    @Test
    void queuedTransaction() throws Exception {
        try (SpinelServer server = SpinelServer.start(oneLoop()); RawClient a = new RawClient(server.port())) {
            String value = held("queued-value", 2000);
            assertEquals("+OK\r\n", a.callString("MULTI"));
            assertEquals("+QUEUED\r\n", a.callString("SET", held("queued-key", 30), value));
            assertEquals("+QUEUED\r\n", a.callString("GET", held("queued-key", 30)));
            overwrite(server.port());
            assertEquals("*2\r\n+OK\r\n" + bulk(value), a.callString("EXEC"));
        }
    }

    @Test
    void blockedCommand() throws Exception {
        try (SpinelServer server = SpinelServer.start(oneLoop()); RawClient a = new RawClient(server.port());
             RawClient c = new RawClient(server.port())) {
            String source = held("source", 40);
            String destination = held("destination", 40);
            a.send(Stream.of("BLMOVE", source, destination, "LEFT", "RIGHT", "0")
                    .map(s -> s.getBytes(StandardCharsets.US_ASCII)).toList());
            waitFor(() -> c.infoNumbers("clients").get("blocked_clients") == 1, "the BLMOVE to block");
            overwrite(server.port());
            assertEquals(":1\r\n", c.callString("RPUSH", source, "moved"));
            assertEquals(bulk("moved"), new String(a.readReply(), StandardCharsets.US_ASCII));
            assertEquals("*1\r\n" + bulk("moved"), c.callString("LRANGE", destination, "0", "-1"));
        }
    }

    @Test
    void requestPostponedByClientPause() throws Exception {
        try (SpinelServer server = SpinelServer.start(oneLoop()); RawClient a = new RawClient(server.port());
             RawClient c = new RawClient(server.port())) {
            String key = held("postponed-key", 40);
            String value = held("postponed-value", 3000);
            assertEquals("+OK\r\n", c.callString("CLIENT", "PAUSE", "100000", "WRITE"));
            a.send(Stream.of("SET", key, value).map(s -> s.getBytes(StandardCharsets.US_ASCII)).toList());
            waitFor(() -> c.infoNumbers("clients").get("blocked_clients") == 1, "the SET to be postponed");
            overwrite(server.port(), false);
            assertEquals("+OK\r\n", c.callString("CLIENT", "UNPAUSE"));
            assertEquals("+OK\r\n", new String(a.readReply(), StandardCharsets.US_ASCII));
            assertEquals(bulk(value), c.callString("GET", key));
        }
    }

    @Test
    void watchedKey() throws Exception {
        try (SpinelServer server = SpinelServer.start(oneLoop()); RawClient a = new RawClient(server.port());
             RawClient c = new RawClient(server.port())) {
            String watched = held("watched", 40);
            assertEquals("+OK\r\n", a.callString("WATCH", watched));
            overwrite(server.port());
            assertEquals("+OK\r\n", c.callString("SET", watched, "changed"));
            assertEquals("+OK\r\n", a.callString("MULTI"));
            assertEquals("+QUEUED\r\n", a.callString("SET", "other", "1"));
            assertEquals("*-1\r\n", a.callString("EXEC"), "the change to the watched key aborts the transaction");
        }
    }

    @Test
    void subscriptionsAndTheClientsName() throws Exception {
        try (SpinelServer server = SpinelServer.start(oneLoop()); RawClient s = new RawClient(server.port());
             RawClient c = new RawClient(server.port())) {
            String channel = held("channel", 40);
            String name = held("name", 30);
            assertEquals("+OK\r\n", s.callString("CLIENT", "SETNAME", name));
            s.send(List.of("SUBSCRIBE".getBytes(StandardCharsets.US_ASCII), channel.getBytes(StandardCharsets.US_ASCII)));
            assertEquals("*3\r\n" + bulk("subscribe") + bulk(channel) + ":1\r\n", new String(s.readReply(), StandardCharsets.US_ASCII));
            overwrite(server.port());
            String message = held("message", 500);
            assertEquals(":1\r\n", c.callString("PUBLISH", channel, message));
            overwrite(server.port()); // before the subscriber reads the message
            assertEquals("*3\r\n" + bulk("message") + bulk(channel) + bulk(message), new String(s.readReply(), StandardCharsets.US_ASCII));
            assertTrue(c.callString("CLIENT", "LIST").contains(" name=" + name + " "));
        }
    }

    @Test
    void slowlogEntryAndCachedScript() throws Exception {
        try (SpinelServer server = SpinelServer.start(oneLoop()); RawClient a = new RawClient(server.port())) {
            assertEquals("+OK\r\n", a.callString("CONFIG", "SET", "slowlog-log-slower-than", "0", "slowlog-max-len", "1000"));
            String key = held("slow-key", 40);
            String value = held("slow-value", 100); // under the 128 bytes slowlog keeps of an argument
            assertEquals("+OK\r\n", a.callString("SET", key, value));
            String script = "return '" + held("script-body", 300) + "'";
            String sha = new String(a.call("SCRIPT", "LOAD", script), StandardCharsets.US_ASCII).split("\r\n")[1];
            overwrite(server.port());
            String log = a.callString("SLOWLOG", "GET", "1000");
            assertTrue(log.contains(bulk("SET") + bulk(key) + bulk(value)), log);
            assertEquals(bulk(held("script-body", 300)), a.callString("EVALSHA", sha, "0"));
        }
    }

    @Test
    void appendOnlyLog() throws Exception {
        try (SpinelServer server = SpinelServer.start(oneLoop().with("dir", dir.toString()).with("appendonly", "yes")
                .with("appendfsync", "always"));
             RawClient a = new RawClient(server.port())) {
            String key = held("logged-key", 40);
            String value = held("logged-value", 3000);
            assertEquals("+OK\r\n", a.callString("SET", key, value));
            overwrite(server.port());
            waitFor(() -> appendOnlyFiles().contains(bulk(key) + bulk(value)), "the SET in the append-only log, whole");
        }
    }

    private String appendOnlyFiles() throws Exception {
        StringBuilder all = new StringBuilder();
        try (Stream<Path> files = Files.list(dir.resolve("appendonlydir"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".aof")).toList()) {
                all.append(new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1));
            }
        }
        return all.toString();
    }

    @Test
    void replicationStream() throws Exception {
        try (SpinelServer master = SpinelServer.start(oneLoop().with("repl-diskless-sync-delay", "0")); SpinelServer replica = SpinelServer.start(oneLoop());
             RawClient a = new RawClient(master.port()); RawClient r = new RawClient(replica.port())) {
            assertEquals("+OK\r\n", r.callString("REPLICAOF", "127.0.0.1", Integer.toString(master.port())));
            waitFor(() -> r.callString("INFO", "replication").contains("master_link_status:up"), "the replica's link");
            String key = held("replicated-key", 40);
            String value = held("replicated-value", 3000);
            assertEquals("+OK\r\n", a.callString("SET", key, value));
            overwrite(master.port());
            waitFor(() -> r.callString("EXISTS", "ZZZZ39").equals(":1\r\n"), "the overwrite to reach the replica");
            assertEquals(bulk(value), r.callString("GET", key));
        }
    }
}
