package dev.spinel.server.clients;

import dev.spinel.server.SpinelServer;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.protocol.ProtocolVersion;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Lettuce, unchanged, against an embedded Spinel. With RESP3 (Lettuce's default) it connects with
 * {@code HELLO 3}; the RESP2 variant connects without HELLO. Covers sync commands, automatic pipelining of
 * 1000 async commands, one connection shared by many threads, and binary values.
 */
class LettuceClientTest {
    private static SpinelServer server;
    private static RedisClient client;

    @BeforeAll
    static void start() {
        server = SpinelServer.startEphemeral();
        client = RedisClient.create();
    }

    @AfterAll
    static void stop() {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        server.close();
    }

    private static RedisURI uri(int database) {
        return RedisURI.builder().withHost("127.0.0.1").withPort(server.port()).withDatabase(database)
                .withTimeout(Duration.ofSeconds(10)).build();
    }

    private static StatefulRedisConnection<String, String> connect(ProtocolVersion protocol, int database) {
        client.setOptions(ClientOptions.builder().protocolVersion(protocol).build());
        return client.connect(uri(database));
    }

    private static void basics(ProtocolVersion protocol) {
        try (StatefulRedisConnection<String, String> c = connect(protocol, 0)) {
            RedisCommands<String, String> r = c.sync();
            assertEquals("PONG", r.ping());
            assertEquals("OK", r.set("lettuce:" + protocol, "v"));
            assertEquals("v", r.get("lettuce:" + protocol));
            assertNull(r.get("lettuce:missing"));
            assertEquals("ünïcode", r.echo("ünïcode"));
            assertEquals(1L, r.del("lettuce:" + protocol, "lettuce:missing"));
            assertNull(r.get("lettuce:" + protocol));
        }
    }

    /** Needs HELLO 3. */
    @Test
    void resp3Basics() {
        basics(ProtocolVersion.RESP3);
    }

    @Test
    void resp2Basics() {
        basics(ProtocolVersion.RESP2);
    }

    /** Lettuce's defaults: RESP3 via HELLO when the server offers it. */
    @Test
    void defaultOptionsBasics() {
        client.setOptions(ClientOptions.create());
        try (StatefulRedisConnection<String, String> c = client.connect(uri(0))) {
            assertEquals("OK", c.sync().set("lettuce:default", "d"));
            assertEquals("d", c.sync().get("lettuce:default"));
        }
    }

    private static void asyncPipelineAndSharedConnection(ProtocolVersion protocol) throws Exception {
        try (StatefulRedisConnection<String, String> c = connect(protocol, 0)) {
            RedisAsyncCommands<String, String> a = c.async();
            String prefix = "lp:" + protocol + ":";
            c.setAutoFlushCommands(false);
            List<RedisFuture<String>> sets = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                sets.add(a.set(prefix + i, "value" + i));
            }
            List<RedisFuture<String>> gets = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                gets.add(a.get(prefix + i));
            }
            c.flushCommands();
            assertTrue(LettuceFutures.awaitAll(Duration.ofSeconds(30), sets.toArray(new RedisFuture[0])));
            assertTrue(LettuceFutures.awaitAll(Duration.ofSeconds(30), gets.toArray(new RedisFuture[0])));
            for (int i = 0; i < 1000; i++) {
                assertEquals("OK", sets.get(i).get());
                assertEquals("value" + i, gets.get(i).get());
            }
            c.setAutoFlushCommands(true);
            // one connection, many threads: Lettuce multiplexes; replies must match their commands
            ExecutorService threads = Executors.newFixedThreadPool(16);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < 16; t++) {
                    int thread = t;
                    done.add(threads.submit(() -> {
                        RedisCommands<String, String> s = c.sync();
                        for (int i = 0; i < 200; i++) {
                            String k = prefix + "t" + thread + ":" + i;
                            assertEquals("OK", s.set(k, k));
                            assertEquals(k, s.get(k));
                        }
                        return null;
                    }));
                }
                for (Future<?> f : done) {
                    f.get(60, TimeUnit.SECONDS);
                }
            } finally {
                threads.shutdownNow();
            }
        }
    }

    /** Needs HELLO 3. */
    @Test
    void resp3AsyncPipelineAndSharedConnection() throws Exception {
        asyncPipelineAndSharedConnection(ProtocolVersion.RESP3);
    }

    @Test
    void resp2AsyncPipelineAndSharedConnection() throws Exception {
        asyncPipelineAndSharedConnection(ProtocolVersion.RESP2);
    }

    private static void binaryAndDatabase(ProtocolVersion protocol) {
        client.setOptions(ClientOptions.builder().protocolVersion(protocol).build());
        try (StatefulRedisConnection<byte[], byte[]> c = client.connect(ByteArrayCodec.INSTANCE, uri(2))) {
            byte[] key = {0, 1, '\r', '\n', (byte) 0xfe};
            byte[] value = new byte[2 * 1024 * 1024];
            new Random(3).nextBytes(value);
            assertEquals("OK", c.sync().set(key, value));
            assertArrayEquals(value, c.sync().get(key));
        }
        try (StatefulRedisConnection<byte[], byte[]> c = client.connect(ByteArrayCodec.INSTANCE, uri(0))) {
            assertNull(c.sync().get(new byte[] {0, 1, '\r', '\n', (byte) 0xfe}), "database 2's key seen in 0");
        }
    }

    /** Needs HELLO 3. */
    @Test
    void resp3BinaryValuesAndDatabase() {
        binaryAndDatabase(ProtocolVersion.RESP3);
    }

    @Test
    void resp2BinaryValuesAndDatabase() {
        binaryAndDatabase(ProtocolVersion.RESP2);
    }
}
