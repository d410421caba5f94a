package dev.spinel.server.clients;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.testing.RawClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.TransactionResult;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.protocol.ProtocolVersion;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.support.caching.CacheAccessor;
import io.lettuce.core.support.caching.CacheFrontend;
import io.lettuce.core.support.caching.ClientSideCaching;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.Transaction;

import java.io.InputStream;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Pub/Sub, transactions and client-side caching through real clients (Jedis, Lettuce), and the
 * output-buffer limit that cuts off a subscriber that does not read.
 */
class PubSubAndTransactionClientsTest {
    private static SpinelServer server;
    private static RedisClient lettuce;

    @BeforeAll
    static void start() {
        server = SpinelServer.startEphemeral();
        lettuce = RedisClient.create();
    }

    @AfterAll
    static void stop() {
        lettuce.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        server.close();
    }

    private static RedisURI uri() {
        return RedisURI.builder().withHost("127.0.0.1").withPort(server.port()).withTimeout(Duration.ofSeconds(10)).build();
    }

    @Test
    void jedisPubSubAndTransactions() throws Exception {
        BlockingQueue<String> got = new LinkedBlockingQueue<>();
        CountDownLatch subscribed = new CountDownLatch(2);
        JedisPubSub listener = new JedisPubSub() {
            @Override
            public void onMessage(String channel, String message) {
                got.add(channel + ":" + message);
            }

            @Override
            public void onPMessage(String pattern, String channel, String message) {
                got.add(pattern + "|" + channel + ":" + message);
            }

            @Override
            public void onSubscribe(String channel, int count) {
                subscribed.countDown();
            }

            @Override
            public void onPSubscribe(String pattern, int count) {
                subscribed.countDown();
            }
        };
        Thread subscriber = Thread.ofPlatform().start(() -> {
            try (Jedis j = new Jedis("127.0.0.1", server.port())) {
                j.subscribe(listener, "news");
            }
        });
        assertTrue(subscribed.await(0, TimeUnit.MILLISECONDS) || waitFor(() -> listener.isSubscribed()));
        listener.psubscribe("n*");
        assertTrue(subscribed.await(5, TimeUnit.SECONDS));
        try (Jedis j = new Jedis("127.0.0.1", server.port())) {
            assertEquals(2, j.publish("news", "hello"));
            assertEquals("news:hello", got.poll(5, TimeUnit.SECONDS));
            assertEquals("n*|news:hello", got.poll(5, TimeUnit.SECONDS));
            listener.unsubscribe();
            listener.punsubscribe();
            subscriber.join(5000);

            j.set("counter", "1");
            j.watch("counter");
            Transaction t = j.multi();
            t.incr("counter");
            t.set("other", "x");
            List<Object> results = t.exec();
            assertEquals(List.of(2L, "OK"), results);

            j.watch("counter");
            try (Jedis other = new Jedis("127.0.0.1", server.port())) {
                other.incr("counter");
            }
            Transaction aborted = j.multi();
            aborted.incr("counter");
            assertNull(aborted.exec());
            assertEquals("3", j.get("counter"));
        }
    }

    @Test
    void lettucePubSubResp3AndTransactions() throws Exception {
        lettuce.setOptions(ClientOptions.builder().protocolVersion(ProtocolVersion.RESP3).build());
        BlockingQueue<String> got = new LinkedBlockingQueue<>();
        try (StatefulRedisPubSubConnection<String, String> sub = lettuce.connectPubSub(uri());
             StatefulRedisConnection<String, String> conn = lettuce.connect(uri())) {
            sub.addListener(new RedisPubSubAdapter<>() {
                @Override
                public void message(String channel, String message) {
                    got.add(channel + ":" + message);
                }
            });
            sub.sync().subscribe("events");
            RedisCommands<String, String> c = conn.sync();
            // RESP3: the subscribed connection still answers ordinary commands.
            assertEquals("PONG", sub.sync().ping());
            assertEquals(1L, c.publish("events", "e1"));
            assertEquals("events:e1", got.poll(5, TimeUnit.SECONDS));

            c.watch("k");
            c.multi();
            c.set("k", "v");
            c.get("k");
            TransactionResult r = c.exec();
            assertEquals(2, r.size());
            assertEquals("v", r.get(1));
        }
    }

    @Test
    void lettuceClientSideCachingIsInvalidatedByWritesFromOtherClients() throws Exception {
        lettuce.setOptions(ClientOptions.builder().protocolVersion(ProtocolVersion.RESP3).build());
        try (StatefulRedisConnection<String, String> tracked = lettuce.connect(uri());
             StatefulRedisConnection<String, String> writer = lettuce.connect(uri())) {
            writer.sync().set("cached", "v1");
            Map<String, String> store = new ConcurrentHashMap<>();
            CacheFrontend<String, String> frontend = ClientSideCaching.enable(CacheAccessor.forMap(store), tracked,
                    io.lettuce.core.TrackingArgs.Builder.enabled());
            assertEquals("v1", frontend.get("cached"));
            assertEquals("v1", store.get("cached"), "the value is cached locally");
            writer.sync().set("cached", "v2");
            assertTrue(waitFor(() -> !store.containsKey("cached")), "the server invalidated the cached key");
            assertEquals("v2", frontend.get("cached"));
            frontend.close();
        }
    }

    @Test
    void aSubscriberThatDoesNotReadIsCutOffAtTheOutputBufferLimit() throws Exception {
        try (RawClient admin = new RawClient(server.port())) {
            assertEquals("+OK\r\n", admin.callString("CONFIG", "SET", "client-output-buffer-limit", "pubsub 1mb 256kb 1"));
            try (Socket slow = new Socket("127.0.0.1", server.port())) {
                slow.setReceiveBufferSize(4096);
                slow.getOutputStream().write("SUBSCRIBE firehose\r\n".getBytes());
                InputStream in = slow.getInputStream();
                in.readNBytes(30); // the subscribe confirmation; from now on it never reads
                byte[] payload = new byte[16 * 1024];
                long published = 0;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                boolean cutOff = false;
                while (System.nanoTime() < deadline) {
                    String n = new String(admin.call(List.of("PUBLISH".getBytes(), "firehose".getBytes(), payload)));
                    published++;
                    if (n.equals(":0\r\n")) {
                        cutOff = true; // the subscriber is gone
                        break;
                    }
                }
                assertTrue(cutOff, "the subscriber was still subscribed after " + published + " messages");
                assertTrue(published * payload.length < 64L * 1024 * 1024, "cut off only after " + published + " messages");
                assertEquals("+PONG\r\n", admin.callString("PING"), "other clients are not affected");
            } finally {
                admin.call("CONFIG", "SET", "client-output-buffer-limit", "normal 0 0 0 replica 256mb 64mb 60 pubsub 32mb 8mb 60");
            }
        }
    }

    private static boolean waitFor(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (System.nanoTime() < deadline) {
            if (condition.getAsBoolean()) {
                return true;
            }
            Thread.sleep(10);
        }
        return condition.getAsBoolean();
    }
}
