package dev.spinel.server.diff;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.StartCancelled;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.Await;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Redis 7.0 listens before it loads its dataset at start-up: a client connected meanwhile gets
 * {@code -LOADING Redis is loading the dataset in memory} for a command without the {@code loading} flag, INFO
 * shows {@code loading:1} and the {@code loading_*} fields, CONFIG is served, and the same connection is served
 * normally once the load ends, its writes applying to the loaded data. A SHUTDOWN NOSAVE during the load stops
 * the server without touching the file. Each server loads the same dump.rdb (written by redis-server), slowed
 * by {@code key-load-delay} until the client has looked, then sped up with CONFIG SET.
 */
class StartupLoadingDiffTest {
    private static final int KEYS = 3000;
    private static byte[] dump;

    @BeforeAll
    static void writeDump() throws Exception {
        try (RedisServerProcess redis = RedisServerProcess.start("--enable-debug-command", "yes");
             RawClient c = new RawClient(redis.port())) {
            c.call("DEBUG", "POPULATE", String.valueOf(KEYS));
            c.call("SAVE");
            dump = Files.readAllBytes(redis.dir().resolve("dump.rdb"));
        }
    }

    private static Path dirWithDump() throws IOException {
        Path dir = Files.createTempDirectory("spinel-startup-load");
        Files.write(dir.resolve("dump.rdb"), dump);
        return dir;
    }

    @Test
    void clientsConnectedDuringTheLoadGetLoadingThenAreServed() throws Exception {
        List<String> redisSeen;
        try (RedisServerProcess redis = RedisServerProcess.startOn(RedisServerProcess.freePort(), "--dir", dirWithDump().toString(),
                "--key-load-delay", "1000", "--loading-process-events-interval-bytes", "1024")) {
            redisSeen = transcript(redis.port(), () -> { });
        }
        int port = RedisServerProcess.freePort();
        Path dir = dirWithDump();
        CompletableFuture<SpinelServer> starting = CompletableFuture.supplyAsync(() -> SpinelServer.start(ServerConfig.defaults()
                .with("port", String.valueOf(port)).with("dir", dir.toString()).with("key-load-delay", "1000")));
        List<String> spinelSeen;
        try {
            spinelSeen = transcript(port, () -> starting.get(60, TimeUnit.SECONDS));
        } finally {
            starting.get(60, TimeUnit.SECONDS).close();
        }
        assertEquals(redisSeen, spinelSeen);
        assertTrue(redisSeen.contains("loading:1"), redisSeen.toString()); // the transcript did see the load
    }

    private interface Step {
        void run() throws Exception;
    }

    /** What a client connected as soon as the port listens sees during the load, and after it on the same connection. */
    private static List<String> transcript(int port, Step loaded) throws Exception {
        List<String> out = new ArrayList<>();
        try (RawClient c = connect(port)) {
            out.add(text(c.call("PING")));
            out.add(text(c.call("DBSIZE")));
            out.add(text(c.call("SET", "k", "v")));
            out.add(text(c.call("CONFIG", "GET", "key-load-delay")));
            for (String line : text(c.call("INFO", "persistence")).split("\r\n")) {
                if (line.startsWith("loading:") || line.startsWith("async_loading:")
                        || line.startsWith("loading_total_bytes:") || line.startsWith("loading_rdb_used_mem:")) {
                    out.add(line);
                } else if (line.startsWith("loading_")) {
                    out.add(line.substring(0, line.indexOf(':'))); // times and progress differ; the field is there
                }
            }
            out.add(text(c.call("CONFIG", "SET", "key-load-delay", "0")));
            Await.waitFor(() -> text(c.call("PING")).equals("+PONG"), "the end of the load");
            loaded.run();
            out.add(text(c.call("DBSIZE")));
            out.add(text(c.call("APPEND", "key:7", "+")));
            out.add(text(c.call("GET", "key:7")));
            out.add(String.valueOf(text(c.call("INFO", "persistence")).contains("\r\nloading:0\r\n")));
        }
        return out;
    }

    /** Connects as soon as the server listens (the load has begun by then: the file is big enough). */
    private static RawClient connect(int port) throws Exception {
        long end = System.currentTimeMillis() + 60_000;
        while (true) {
            try {
                return new RawClient(port);
            } catch (ConnectException notYet) {
                assertTrue(System.currentTimeMillis() < end, "the server never listened");
                Thread.sleep(5);
            }
        }
    }

    /**
     * A client that connects before the loader has read the file's start waits for it, as Redis serves nobody before
     * its loader first processes events: it never sees the load without its sizes. The dump comes through a FIFO, so
     * the loader waits for the test; the client used to be served meanwhile, with {@code loading_rdb_used_mem:0}.
     */
    @Test
    void aClientThatConnectsBeforeTheLoaderReadTheFileWaitsForIt() throws Exception {
        Path dir = Files.createTempDirectory("spinel-startup-fifo");
        Path fifo = dir.resolve("dump.rdb");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        int port = RedisServerProcess.freePort();
        CompletableFuture<SpinelServer> starting = CompletableFuture.supplyAsync(() -> SpinelServer.start(ServerConfig.defaults()
                .with("port", String.valueOf(port)).with("dir", dir.toString()).with("key-load-delay", "1000")));
        try (RawClient c = connect(port)) {
            c.send(List.of("INFO".getBytes(StandardCharsets.UTF_8), "persistence".getBytes(StandardCharsets.UTF_8)));
            CompletableFuture<String> info = CompletableFuture.supplyAsync(() -> {
                try {
                    return text(c.readReply());
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
            try {
                info.get(3, TimeUnit.SECONDS); // not a wait for a condition: the old server answered at once (seconds when loaded)
            } catch (TimeoutException held) {
                // held until the loader has read the file's start: as it should
            }
            Files.write(fifo, dump);
            String seen = info.get(30, TimeUnit.SECONDS);
            assertTrue(seen.contains("\r\nloading:1\r\n"), seen);
            assertFalse(seen.contains("loading_rdb_used_mem:0\r\n"), "the client saw the load before its used-mem: " + seen);
            assertEquals("+OK", text(c.call("CONFIG", "SET", "key-load-delay", "0")));
        } finally {
            starting.get(60, TimeUnit.SECONDS).close();
        }
    }

    /**
     * A start-up load that fails serves nobody from then on, as Redis, which exits right after logging why: a client
     * that was answered -LOADING and keeps sending PINGs sees its connection closed, never a PONG. The start used to
     * end the load before closing the port and the event loops, so PINGs that came in between got a PONG from the
     * empty keyspace of a server about to exit (a write would have been acknowledged and lost); Redis's Tcl suite, run
     * on Spinel, took such a PONG for a started server and put its " PID:" line after the load's error ("Bad format:
     * Server should have logged an error" then read the PID line as the log's last). The dump is cut short: the
     * load, slowed by {@code key-load-delay}, reads most keys, then fails on the short read.
     */
    @Test
    void aLoadThatFailsServesNoCommandAfterIt() throws Exception {
        Path dir = Files.createTempDirectory("spinel-startup-cut");
        Files.write(dir.resolve("dump.rdb"), Arrays.copyOf(dump, dump.length * 9 / 10));
        int port = RedisServerProcess.freePort();
        CompletableFuture<SpinelServer> starting = CompletableFuture.supplyAsync(() -> SpinelServer.start(ServerConfig.defaults()
                .with("port", String.valueOf(port)).with("dir", dir.toString()).with("key-load-delay", "500")));
        Queue<String> replies = new ConcurrentLinkedQueue<>();
        try (RawClient c = connect(port)) {
            Thread pinging = Thread.ofPlatform().start(() -> {
                try {
                    while (true) {
                        replies.add(text(c.call("PING")));
                    }
                } catch (IOException closed) {
                    // the server closed the connection: the end of the pings
                }
            });
            ExecutionException failed = assertThrows(ExecutionException.class, () -> starting.get(60, TimeUnit.SECONDS));
            assertFalse(failed.getCause() instanceof StartCancelled, String.valueOf(failed.getCause()));
            pinging.join(30_000);
            assertFalse(pinging.isAlive(), "the connection was not closed");
        }
        assertTrue(replies.size() > 10, replies.toString()); // the pings did run during the load
        assertEquals(List.of("-LOADING Redis is loading the dataset in memory"), replies.stream().distinct().toList());
        assertThrows(ConnectException.class, () -> new RawClient(port).close(), "the port is closed");
    }

    /**
     * A cluster node loads its files before it listens (its topology waits for the data): a client that connects as
     * soon as it can, during a slow load, gets -LOADING (Redis 7.0 listens first) or the whole dataset, never an empty
     * or partial keyspace.
     */
    @Test
    void aClusterNodeNeverServesItsKeyspaceBeforeTheLoadEnds() throws Exception {
        Path dir = dirWithDump();
        // fixed, as the other cluster tests (each its own): its bus port (+10000) must be a port too, and below the
        // kernel's ephemeral range (32768-60999), where any outgoing connection of a parallel test JVM may hold it
        int port = 22671;
        CompletableFuture<SpinelServer> starting = CompletableFuture.supplyAsync(() -> SpinelServer.start(ServerConfig.defaults()
                .with("port", String.valueOf(port)).with("dir", dir.toString()).with("cluster-enabled", "yes")
                .with("key-load-delay", "300")), r -> new Thread(r, "cluster-start").start()); // Raft's futures need the common pool
        try (RawClient c = connect(port)) {
            c.send(List.of("DBSIZE".getBytes(StandardCharsets.UTF_8))); // sent during the start
            starting.get(60, TimeUnit.SECONDS); // the node's Raft start can take longer than the client's read timeout
            String first = text(c.readReply());
            assertTrue(first.equals(":" + KEYS) || first.equals("-LOADING Redis is loading the dataset in memory"), first);
            Await.waitFor(() -> !text(c.call("PING")).startsWith("-LOADING"), "the end of the load");
            assertEquals(":" + KEYS, text(c.call("DBSIZE")));
        } finally {
            starting.get(60, TimeUnit.SECONDS).close();
        }
    }

    @Test
    void shutdownNosaveDuringTheLoadStopsTheServerWithoutSaving() throws Exception {
        Path dir = dirWithDump();
        int port = RedisServerProcess.freePort();
        CompletableFuture<SpinelServer> starting = CompletableFuture.supplyAsync(() -> SpinelServer.start(ServerConfig.defaults()
                .with("port", String.valueOf(port)).with("dir", dir.toString()).with("key-load-delay", "1000")
                .with("save", "1 1")));
        try (RawClient c = connect(port)) {
            assertEquals("-LOADING Redis is loading the dataset in memory", text(c.call("PING")));
            c.send(List.of("SHUTDOWN".getBytes(StandardCharsets.UTF_8))); // Redis never saves during a load, NOSAVE or not
            assertTrue(c.isClosedByServer(10_000), "SHUTDOWN closes the connection");
        }
        ExecutionException e = assertThrows(ExecutionException.class, () -> starting.get(10, TimeUnit.SECONDS));
        assertInstanceOf(StartCancelled.class, e.getCause());
        assertArrayEquals(dump, Files.readAllBytes(dir.resolve("dump.rdb")), "the half-loaded dataset was not saved");
        assertThrows(ConnectException.class, () -> new RawClient(port).close(), "the port is closed");
    }

    private static String text(byte[] reply) {
        String s = new String(reply, StandardCharsets.UTF_8);
        return s.endsWith("\r\n") ? s.substring(0, s.length() - 2) : s;
    }
}
