package dev.spinel.client;

import dev.spinel.client.testing.TestServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What runs on connections of its own: blocking commands (which must not stall the shared connection),
 * MULTI/EXEC transactions with WATCH, and pub/sub (channels, patterns, shard channels), over RESP3 and
 * RESP2. Parts the server does not implement yet are skipped.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class DedicatedContract {
    private TestServer server;
    private SpinelClient<String, String> resp3;
    private SpinelClient<String, String> resp2;

    protected abstract TestServer startServer();

    @BeforeAll
    void start() {
        server = startServer();
        resp3 = SpinelClient.create(server.uri());
        resp2 = SpinelClient.create(server.uri(), ClientOptions.defaults().withResp3(false));
    }

    @AfterAll
    void stop() {
        resp3.close();
        resp2.close();
        server.close();
    }

    private SpinelClient<String, String> client(boolean r3, String... commands) {
        SpinelClient<String, String> c = r3 ? resp3 : resp2;
        for (String name : commands) {
            try {
                c.sync().execute(name);
            } catch (ServerErrorException e) {
                assumeTrue(!e.getMessage().startsWith("ERR unknown command"), server.name() + " does not implement " + name + " yet");
            }
        }
        return c;
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void blockingPopDoesNotStallTheSharedConnection(boolean r3) throws Exception {
        SpinelClient<String, String> c = client(r3, "BLPOP", "RPUSH", "BRPOP", "BRPOPLPUSH", "BLMOVE", "BZPOPMIN", "BZPOPMAX", "ZADD");
        String q = "bl:" + r3;
        c.sync().del(q);
        CompletableFuture<KeyValue<String, String>> popped = c.async().blpop(5, q);
        for (int i = 0; i < 100; i++) {
            assertEquals("PONG", c.async().ping().get(1, TimeUnit.SECONDS)); // the shared connection is free
        }
        assertFalse(popped.isDone());
        c.sync().rpush(q, "item");
        assertEquals(new KeyValue<>(q, "item"), popped.get(5, TimeUnit.SECONDS));
        assertNull(c.sync().brpop(0.05, q)); // timed out on the server: null
        c.sync().rpush(q, "x");
        assertEquals("x", c.sync().brpoplpush(q, q + ":dst", 1));
        assertEquals(List.of("x"), c.sync().lrange(q + ":dst", 0, -1));
        CompletableFuture<String> moved = c.async().blmove(q, q + ":dst", ListDirection.LEFT, ListDirection.LEFT, 5);
        c.sync().rpush(q, "y");
        assertEquals("y", moved.get(5, TimeUnit.SECONDS));
        assertEquals(List.of("y", "x"), c.sync().lrange(q + ":dst", 0, -1));
        assertNull(c.sync().blmove(q, q + ":dst", ListDirection.LEFT, ListDirection.LEFT, 0.05));
        c.sync().del(q + ":dst");
        String z = q + ":z";
        CompletableFuture<KeyValue<String, ScoredValue<String>>> zp = c.async().bzpopmin(5, z);
        c.sync().zadd(z, List.of(new ScoredValue<>("low", 1), new ScoredValue<>("high", 2)));
        assertEquals(new KeyValue<>(z, new ScoredValue<>("low", 1.0)), zp.get(5, TimeUnit.SECONDS));
        assertEquals(new KeyValue<>(z, new ScoredValue<>("high", 2.0)), c.sync().bzpopmax(1, z));
        assertNull(c.sync().bzpopmin(0.05, z));
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void transactionCompletesEachCommandFromExec(boolean r3) throws Exception {
        SpinelClient<String, String> c = client(r3, "MULTI", "EXEC", "INCR", "LPUSH");
        String k = "tx:" + r3;
        c.sync().del(k, k + ":l");
        CompletableFuture<?>[] fs = new CompletableFuture<?>[4];
        boolean ran = c.transaction(tx -> {
            fs[0] = tx.set(k, "10");
            fs[1] = tx.incr(k);
            fs[2] = tx.lpush(k, "wrong type"); // fails at EXEC time, alone
            fs[3] = tx.get(k);
            return null;
        }).get(5, TimeUnit.SECONDS);
        assertTrue(ran);
        assertEquals("OK", fs[0].get());
        assertEquals(11L, fs[1].get());
        CompletionException e = assertThrows(CompletionException.class, fs[2]::join);
        assertInstanceOf(ServerErrorException.class, e.getCause());
        assertEquals("11", fs[3].get());
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void watchedKeyChangeAbortsTheTransaction(boolean r3) throws Exception {
        SpinelClient<String, String> c = client(r3, "MULTI", "EXEC", "WATCH");
        String k = "watch:" + r3;
        c.sync().set(k, "1");
        try (DedicatedConnection<String, String> d = c.dedicated()) {
            assertEquals("OK", d.watch(k).get());
            assertEquals("1", d.sync().get(k));
            c.sync().set(k, "changed by someone else");
            assertEquals("OK", d.multi().get());
            CompletableFuture<String> set = d.async().set(k, "mine");
            assertFalse(d.exec().get(5, TimeUnit.SECONDS));
            CompletionException e = assertThrows(CompletionException.class, set::join);
            assertInstanceOf(TransactionAbortedException.class, e.getCause());
        }
        assertEquals("changed by someone else", c.sync().get(k));
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void refusedCommandAbortsExec(boolean r3) {
        SpinelClient<String, String> c = client(r3, "MULTI", "EXEC");
        try (DedicatedConnection<String, String> d = c.dedicated()) {
            d.multi().join();
            CompletableFuture<String> ok = d.async().set("tx:never", "x");
            CompletableFuture<?> bad = d.async().execute("NOSUCHCOMMAND");
            CompletionException e = assertThrows(CompletionException.class, () -> d.exec().join());
            assertTrue(e.getCause().getMessage().startsWith("EXECABORT"), e.getCause().getMessage());
            assertTrue(ok.isCompletedExceptionally());
            assertTrue(bad.isCompletedExceptionally());
        }
        assertNull(c.sync().get("tx:never"));
    }

    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void pubSubDeliversChannelPatternAndShardMessages(boolean r3) throws Exception {
        SpinelClient<String, String> c = client(r3, "SUBSCRIBE", "PUBLISH", "PSUBSCRIBE");
        BlockingQueue<String> got = new LinkedBlockingQueue<>();
        try (PubSub<String, String> ps = c.pubSub()) {
            ps.addListener(new PubSubListener<>() {
                @Override
                public void message(String channel, String message) {
                    got.add(channel + "=" + message);
                }

                @Override
                public void message(String pattern, String channel, String message) {
                    got.add(pattern + ":" + channel + "=" + message);
                }

                @Override
                public void shardMessage(String shardChannel, String message) {
                    got.add("shard " + shardChannel + "=" + message);
                }
            });
            ps.subscribe("news", "sport").get(5, TimeUnit.SECONDS);
            ps.psubscribe("n*").get(5, TimeUnit.SECONDS);
            assertEquals(2L, c.sync().publish("news", "hello"));
            assertEquals(1L, c.sync().publish("sport", "goal"));
            assertEquals(List.of("news=hello", "n*:news=hello", "sport=goal"), List.of(poll(got), poll(got), poll(got)));
            ps.unsubscribe().get(5, TimeUnit.SECONDS);
            assertEquals(1L, c.sync().publish("news", "again"));
            assertEquals("n*:news=again", poll(got));
            ps.punsubscribe().get(5, TimeUnit.SECONDS);
            assertEquals(0L, c.sync().publish("news", "nobody"));
            boolean sharded = true;
            try {
                c.sync().execute("SPUBLISH");
                c.sync().execute("SSUBSCRIBE");
            } catch (ServerErrorException e) {
                sharded = !e.getMessage().startsWith("ERR unknown command");
            }
            if (sharded) {
                ps.ssubscribe("orders").get(5, TimeUnit.SECONDS);
                assertEquals(1L, c.sync().spublish("orders", "o1"));
                assertEquals("shard orders=o1", poll(got));
                ps.sunsubscribe().get(5, TimeUnit.SECONDS);
            }
        }
        assertNull(got.poll());
    }

    private static String poll(BlockingQueue<String> q) throws InterruptedException {
        String s = q.poll(5, TimeUnit.SECONDS);
        assertTrue(s != null, "a message arrived");
        return s;
    }
}
