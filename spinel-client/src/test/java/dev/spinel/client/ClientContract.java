package dev.spinel.client;

import dev.spinel.client.testing.TestServer;
import dev.spinel.protocol.RespValue;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The client's behaviour on the commands every server under test implements (connection and
 * strings core: PING ECHO SELECT GET SET DEL), the same tests against each server (subclasses).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ClientContract {
    protected TestServer server;
    protected SpinelClient<String, String> client;

    protected abstract TestServer startServer();

    @BeforeAll
    void start() {
        server = startServer();
        client = SpinelClient.create(server.uri());
    }

    @AfterAll
    void stop() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
    }

    @BeforeEach
    void clean() {
        // FLUSHALL is not on every server under test yet: tests use keys of their own.
    }

    /** Skips (never passes) a test whose command this server does not implement yet. */
    protected void requireCommand(String name) {
        try {
            client.sync().execute(name);
        } catch (ServerErrorException e) {
            assumeTrue(!e.getMessage().startsWith("ERR unknown command"), server.name() + " does not implement " + name + " yet");
        }
    }

    @Test
    void pingEchoSetGetDel() {
        SyncCommands<String, String> s = client.sync();
        assertEquals("PONG", s.ping());
        assertEquals("héllo", s.echo("héllo"));
        assertEquals("OK", s.set("core:k", "v1"));
        assertEquals("v1", s.get("core:k"));
        assertEquals(1L, s.del("core:k", "core:missing"));
        assertNull(s.get("core:k"));
    }

    @Test
    void infoSectionIsText() {
        requireCommand("INFO");
        assertTrue(client.sync().info("server").contains("redis_version:"));
    }

    @Test
    void asyncFuturesCompose() throws Exception {
        AsyncCommands<String, String> a = client.async();
        String v = a.set("core:a", "x").thenCompose(ok -> a.get("core:a")).get(5, TimeUnit.SECONDS);
        assertEquals("x", v);
    }

    @Test
    void binaryCodecKeepsEveryByte() {
        byte[] key = {0, 1, (byte) 0xff, '\r', '\n', (byte) 0xc3};
        byte[] value = new byte[256];
        for (int i = 0; i < value.length; i++) {
            value[i] = (byte) i;
        }
        try (SpinelClient<byte[], byte[]> bin = SpinelClient.create(server.uri(), Codec.BYTES)) {
            assertEquals("OK", bin.sync().set(key, value));
            assertArrayEquals(value, bin.sync().get(key));
            assertEquals(1L, bin.sync().del(key));
        }
    }

    @Test
    void executeReturnsRawReplies() {
        assertEquals(new RespValue.SimpleString("OK"), client.sync().execute("SET", "core:raw", 12));
        RespValue got = client.sync().execute("GET", "core:raw");
        assertArrayEquals("12".getBytes(StandardCharsets.US_ASCII), ((RespValue.BulkString) got).value());
        assertInstanceOf(RespValue.Null.class, client.sync().execute("GET", "core:none"));
        ServerErrorException e = assertThrows(ServerErrorException.class, () -> client.sync().execute("NOSUCHCOMMAND", "a"));
        assertEquals("ERR unknown command 'NOSUCHCOMMAND', with args beginning with: 'a' ", e.getMessage());
        assertEquals("ERR", e.code());
        e = assertThrows(ServerErrorException.class, () -> client.sync().execute("GET"));
        assertEquals("ERR wrong number of arguments for 'get' command", e.getMessage());
        CompletionException ce = assertThrows(CompletionException.class, () -> client.async().execute("GET").join());
        assertInstanceOf(ServerErrorException.class, ce.getCause());
    }

    @Test
    void databaseFromUriIsSelected() {
        try (SpinelClient<String, String> db3 = SpinelClient.create(server.uri() + "/3")) {
            db3.sync().set("core:db", "three");
            assertEquals("three", db3.sync().get("core:db"));
            assertNull(client.sync().get("core:db"));
            db3.sync().del("core:db");
        }
    }

    @Test
    void resp3WhenTheServerKnowsHelloElseResp2() {
        boolean knowsHello = true;
        try (SpinelClient<String, String> c2 = SpinelClient.create(server.uri(), ClientOptions.defaults().withResp3(false))) {
            c2.sync().execute("HELLO", "2");
        } catch (ServerErrorException e) {
            knowsHello = !e.getMessage().startsWith("ERR unknown command");
        }
        assertEquals(knowsHello ? 3 : 2, client.protocol());
        assertEquals("PONG", client.sync().ping());
    }

    @Test
    void resp2WhenAsked() {
        try (SpinelClient<String, String> c2 = SpinelClient.create(server.uri(), ClientOptions.defaults().withResp3(false))) {
            assertEquals(2, c2.protocol());
            assertEquals("PONG", c2.sync().ping());
        }
    }

    @Test
    void everyFutureGetsItsOwnReplyUnderConcurrency() throws Exception {
        int threads = 16;
        int perThread = 2000;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<CompletableFuture<Integer>> all = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int tt = t;
                all.add(CompletableFuture.supplyAsync(() -> {
                    List<CompletableFuture<String>> sets = new ArrayList<>();
                    List<CompletableFuture<String>> gets = new ArrayList<>();
                    List<CompletableFuture<String>> echoes = new ArrayList<>();
                    for (int i = 0; i < perThread; i++) {
                        String key = "order:" + tt + ":" + (i % 50);
                        sets.add(client.async().set(key, tt + "/" + i));
                        gets.add(client.async().get(key));
                        echoes.add(client.async().echo("e" + tt + "." + i));
                    }
                    int ok = 0;
                    for (int i = 0; i < perThread; i++) {
                        assertEquals("OK", sets.get(i).join());
                        // a thread's own commands are answered in its order: GET sees this thread's last SET
                        assertEquals(tt + "/" + i, gets.get(i).join());
                        assertEquals("e" + tt + "." + i, echoes.get(i).join());
                        ok++;
                    }
                    return ok;
                }, pool));
            }
            int total = 0;
            for (CompletableFuture<Integer> f : all) {
                total += f.get(60, TimeUnit.SECONDS);
            }
            assertEquals(threads * perThread, total);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void manyVirtualThreadsShareOneClient() throws Exception {
        AtomicInteger ok = new AtomicInteger();
        try (ExecutorService vt = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < 5000; i++) {
                int n = i;
                vt.submit(() -> {
                    String key = "vt:" + n;
                    client.sync().set(key, "v" + n);
                    if (("v" + n).equals(client.sync().get(key)) && client.sync().del(key) == 1) {
                        ok.incrementAndGet();
                    }
                });
            }
        }
        assertEquals(5000, ok.get());
    }

    @Test
    void boundedQueueRefusesWhenFull() {
        try (SpinelClient<String, String> small = SpinelClient.create(server.uri(), ClientOptions.defaults().withMaxInFlight(8))) {
            List<CompletableFuture<String>> fs = new ArrayList<>();
            for (int i = 0; i < 5000; i++) {
                fs.add(small.async().ping());
            }
            int ok = 0;
            int full = 0;
            for (CompletableFuture<String> f : fs) {
                try {
                    assertEquals("PONG", f.join());
                    ok++;
                } catch (CompletionException e) {
                    assertInstanceOf(QueueFullException.class, e.getCause());
                    full++;
                }
            }
            assertTrue(ok >= 8, "at least a full queue's worth succeeded: " + ok);
            assertTrue(full > 0, "some were refused");
            assertEquals("PONG", small.sync().ping()); // and the client goes on working
        }
    }

    @Test
    void unreachableServerFailsClearly() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        ConnectionException e = assertThrows(ConnectionException.class, () -> SpinelClient.create("redis://127.0.0.1:" + port));
        assertTrue(e.getMessage().contains("cannot connect"), e.getMessage());
    }

    @Test
    void blockingCallInsideACallbackIsRefusedNotDeadlocked() throws Exception {
        // A callback runs on the event loop when it was attached before the reply came (the last of a
        // burst surely is); on the caller's thread otherwise, where blocking is allowed.
        boolean ranOnLoop = false;
        for (int attempt = 0; attempt < 20 && !ranOnLoop; attempt++) {
            CompletableFuture<String> last = null;
            for (int i = 0; i < 1000; i++) {
                last = client.async().ping();
            }
            CompletableFuture<String[]> inner = last.thenApply(p -> {
                String thread = Thread.currentThread().getName();
                try {
                    return new String[]{thread, client.sync().ping()};
                } catch (IllegalStateException e) {
                    return new String[]{thread, "refused"};
                }
            });
            String[] r = inner.get(5, TimeUnit.SECONDS);
            ranOnLoop = r[0].startsWith("spinel-client");
            assertEquals(ranOnLoop ? "refused" : "PONG", r[1], "on thread " + r[0]);
        }
        assertTrue(ranOnLoop, "a callback ran on the event loop");
    }

    @Test
    void closedClientFailsCommands() {
        SpinelClient<String, String> c = SpinelClient.create(server.uri());
        c.close();
        assertThrows(ConnectionException.class, () -> c.sync().ping());
    }

    @Test
    void reconnectsAfterServerRestart() throws Exception {
        try (SpinelClient<String, String> c = SpinelClient.create(server.uri() + "/2",
                ClientOptions.defaults().withReconnectDelay(Duration.ofMillis(10), Duration.ofMillis(200)))) {
            assertEquals("OK", c.sync().set("re:k", "before"));
            List<CompletableFuture<String>> inflight = new ArrayList<>();
            for (int i = 0; i < 20_000; i++) {
                inflight.add(c.async().echo("x" + i));
            }
            server.stop();
            // every pending future ends: with its reply, or failed cleanly with a ConnectionException
            int failed = 0;
            for (CompletableFuture<String> f : inflight) {
                try {
                    f.get(30, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    assertInstanceOf(ConnectionException.class, e.getCause());
                    failed++;
                }
            }
            server.startAgain();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            String pong = null;
            while (pong == null && System.nanoTime() < deadline) {
                try {
                    pong = c.sync().ping();
                } catch (ConnectionException e) {
                    Thread.sleep(20);
                }
            }
            assertEquals("PONG", pong);
            // SELECT was replayed: the key lands in db 2
            assertEquals("OK", c.sync().set("re:k", "after"));
            assertEquals("after", c.sync().get("re:k"));
            try (SpinelClient<String, String> db2 = SpinelClient.create(server.uri() + "/2")) {
                assertEquals("after", db2.sync().get("re:k"));
            }
            assertNull(client.sync().get("re:k")); // the shared test client reconnected too, on db 0
            assertTrue(failed >= 0);
        }
    }
}
