package dev.spinel.server.clients;

import dev.spinel.server.SpinelServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.ClientSetInfoConfig;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.JedisPoolConfig;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.Response;

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

/**
 * Jedis, unchanged, against an embedded Spinel: a pool of 100 connections used by concurrent threads,
 * pipelines of 1000 commands, binary and large values. Jedis sends {@code CLIENT SETINFO} when it connects
 * (its default); the variant with it disabled needs nothing but the core commands.
 */
class JedisClientTest {
    private static SpinelServer server;

    @BeforeAll
    static void start() {
        server = SpinelServer.startEphemeral();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static JedisClientConfig config(boolean setInfo, int database) {
        return DefaultJedisClientConfig.builder()
                .database(database)
                .timeoutMillis(10_000)
                .clientSetInfoConfig(setInfo ? ClientSetInfoConfig.DEFAULT : ClientSetInfoConfig.DISABLED)
                .build();
    }

    private static JedisPool pool(boolean setInfo, int database) {
        JedisPoolConfig pc = new JedisPoolConfig();
        pc.setMaxTotal(100);
        pc.setMaxIdle(100);
        pc.setMinIdle(0);
        pc.setJmxEnabled(false);
        return new JedisPool(pc, new HostAndPort("127.0.0.1", server.port()), config(setInfo, database));
    }

    /** 100 pooled connections, 32 threads, each doing SET/GET/DEL on its own keys and checking every reply. */
    private static void concurrentPool(boolean setInfo, String prefix) throws Exception {
        try (JedisPool pool = pool(setInfo, 0)) {
            // open all 100 connections at once
            List<Jedis> held = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                held.add(pool.getResource());
            }
            for (Jedis j : held) {
                assertEquals("PONG", j.ping());
                j.close();
            }
            ExecutorService threads = Executors.newFixedThreadPool(32);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < 32; t++) {
                    int thread = t;
                    done.add(threads.submit(() -> {
                        for (int i = 0; i < 300; i++) {
                            try (Jedis j = pool.getResource()) {
                                String key = prefix + thread + ":" + i;
                                assertEquals("OK", j.set(key, "v" + i));
                                assertEquals("v" + i, j.get(key));
                                if (i % 3 == 0) {
                                    assertEquals(1, j.del(key));
                                    assertNull(j.get(key));
                                }
                            }
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
            try (Jedis j = pool.getResource()) {
                assertEquals("v1", j.get(prefix + "5:1"));
                assertNull(j.get(prefix + "5:3"));
            }
        }
    }

    @Test
    void pooledConcurrentClientsWithClientSetInfo() throws Exception {
        concurrentPool(true, "setinfo:");
    }

    @Test
    void pooledConcurrentClientsWithoutClientSetInfo() throws Exception {
        concurrentPool(false, "plain:");
    }

    private static void pipelines(boolean setInfo) {
        try (Jedis j = new Jedis(new HostAndPort("127.0.0.1", server.port()), config(setInfo, 0))) {
            for (int round = 0; round < 5; round++) {
                Pipeline p = j.pipelined();
                List<Response<String>> sets = new ArrayList<>();
                for (int i = 0; i < 1000; i++) {
                    sets.add(p.set("pipe:" + setInfo + ":" + i, round + ":" + i));
                }
                List<Response<String>> gets = new ArrayList<>();
                for (int i = 0; i < 1000; i++) {
                    gets.add(p.get("pipe:" + setInfo + ":" + i));
                }
                Response<Long> deleted = p.del("pipe:" + setInfo + ":0", "pipe:" + setInfo + ":1", "missing");
                p.sync();
                for (int i = 0; i < 1000; i++) {
                    assertEquals("OK", sets.get(i).get());
                    assertEquals(round + ":" + i, gets.get(i).get());
                }
                assertEquals(2, deleted.get());
            }
        }
    }

    @Test
    void pipelinesOfAThousandWithClientSetInfo() {
        pipelines(true);
    }

    @Test
    void pipelinesOfAThousandWithoutClientSetInfo() {
        pipelines(false);
    }

    /** Needs HELLO 3: Jedis switches to RESP3 only when asked. */
    @Test
    void resp3ConnectionWithHello() {
        JedisClientConfig resp3 = DefaultJedisClientConfig.builder().protocol(RedisProtocol.RESP3).timeoutMillis(10_000).build();
        try (Jedis j = new Jedis(new HostAndPort("127.0.0.1", server.port()), resp3)) {
            assertEquals("PONG", j.ping());
            assertEquals("OK", j.set("jedis:resp3", "3"));
            assertEquals("3", j.get("jedis:resp3"));
            assertNull(j.get("jedis:resp3:missing"));
            Pipeline p = j.pipelined();
            List<Response<String>> gets = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                p.set("jedis:resp3:" + i, "x" + i);
                gets.add(p.get("jedis:resp3:" + i));
            }
            p.sync();
            for (int i = 0; i < 1000; i++) {
                assertEquals("x" + i, gets.get(i).get());
            }
        }
    }

    @Test
    void binaryLargeValuesEchoAndSelect() {
        try (Jedis j = new Jedis(new HostAndPort("127.0.0.1", server.port()), config(false, 0))) {
            byte[] all = new byte[256];
            for (int i = 0; i < 256; i++) {
                all[i] = (byte) i;
            }
            byte[] key = {0, '\r', '\n', (byte) 0xff};
            assertEquals("OK", j.set(key, all));
            assertArrayEquals(all, j.get(key));
            byte[] big = new byte[3 * 1024 * 1024];
            new Random(1).nextBytes(big);
            assertEquals("OK", j.set("big".getBytes(), big));
            assertArrayEquals(big, j.get("big".getBytes()));
            assertEquals("héllo wörld", j.echo("héllo wörld"));
            assertEquals("OK", j.select(3));
            assertNull(j.get("big"));
            assertEquals("OK", j.set("in3", "x"));
            assertEquals("OK", j.select(0));
            assertNull(j.get("in3"));
        }
        // a pool bound to database 3 selects it on every connection
        try (JedisPool pool = pool(false, 3); Jedis j = pool.getResource()) {
            assertEquals("x", j.get("in3"));
        }
    }
}
