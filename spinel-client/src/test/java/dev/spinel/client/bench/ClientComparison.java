package dev.spinel.client.bench;

import dev.spinel.client.SpinelClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import redis.clients.jedis.JedisPooled;
import redis.clients.jedis.Pipeline;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Consumer;

/**
 * A quick side-by-side of spinel-client, Lettuce and Jedis on the three scenarios, printing
 * ops/s and bytes allocated per operation (all threads of the JVM). A program, not a test: run it by
 * hand against a server, e.g. {@code redis-server --port 7890 --save ""}, with the test classpath:
 * <pre>
 * java -cp "$(cat cp.txt):spinel-client/target/classes:spinel-client/target/test-classes:spinel-protocol/target/classes" \
 *      dev.spinel.client.bench.ClientComparison 7890
 * </pre>
 * One run on a shared machine is noisy: compare ratios from the same run. JMH versions belong in spinel-bench.
 */
public final class ClientComparison {
    private static final com.sun.management.ThreadMXBean THREADS = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private interface Body {
        void run() throws Exception;
    }

    private static void measure(String name, long ops, Body body) throws Exception {
        body.run(); // warm-up
        body.run();
        long a0 = THREADS.getTotalThreadAllocatedBytes();
        long t0 = System.nanoTime();
        body.run();
        long t1 = System.nanoTime();
        long a1 = THREADS.getTotalThreadAllocatedBytes();
        System.out.printf("%-42s %10.0f ops/s %8.0f B/op%n", name, ops / ((t1 - t0) / 1e9), (double) (a1 - a0) / ops);
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        String uri = "redis://127.0.0.1:" + port;
        String value = "x".repeat(32);
        ExecutorService ten = Executors.newFixedThreadPool(10);
        try (SpinelClient<String, String> spinel = SpinelClient.create(uri);
             JedisPooled jedis = new JedisPooled("127.0.0.1", port)) {
            RedisClient lettuceClient = RedisClient.create(uri);
            StatefulRedisConnection<String, String> lettuce = lettuceClient.connect();
            RedisAsyncCommands<String, String> la = lettuce.async();
            RedisCommands<String, String> ls = lettuce.sync();

            measure("spinel  1000 pipelined PING x50", 50_000, () -> {
                for (int r = 0; r < 50; r++) {
                    List<CompletableFuture<String>> fs = new ArrayList<>(1000);
                    for (int i = 0; i < 1000; i++) {
                        fs.add(spinel.async().ping());
                    }
                    for (CompletableFuture<String> f : fs) {
                        f.join();
                    }
                }
            });
            measure("lettuce 1000 pipelined PING x50", 50_000, () -> {
                for (int r = 0; r < 50; r++) {
                    List<RedisFuture<String>> fs = new ArrayList<>(1000);
                    for (int i = 0; i < 1000; i++) {
                        fs.add(la.ping());
                    }
                    for (RedisFuture<String> f : fs) {
                        f.get();
                    }
                }
            });
            measure("jedis   1000 pipelined GET x50 (Pipeline)", 50_000, () -> {
                for (int r = 0; r < 50; r++) {
                    try (Pipeline p = jedis.pipelined()) {
                        for (int i = 0; i < 1000; i++) {
                            p.get("p");
                        }
                        p.sync();
                    }
                }
            });

            measure("spinel  100k SET from 10 producers", 100_000, () -> producers(ten, (p, i) -> spinel.async().set("k" + p + ":" + (i & 1023), value)));
            measure("lettuce 100k SET from 10 producers", 100_000, () -> producers(ten, (p, i) -> la.set("k" + p + ":" + (i & 1023), value).toCompletableFuture()));
            measure("jedis   100k SET from 10 threads (pool)", 100_000, () -> {
                List<Future<?>> ts = new ArrayList<>();
                for (int p = 0; p < 10; p++) {
                    int pp = p;
                    ts.add(ten.submit(() -> {
                        for (int i = 0; i < 10_000; i++) {
                            jedis.set("k" + pp + ":" + (i & 1023), value);
                        }
                    }));
                }
                for (Future<?> f : ts) {
                    f.get();
                }
            });

            measure("spinel  10k virtual threads sync SET+GET x5", 100_000, () -> virtualThreads((k) -> {
                spinel.sync().set(k, value);
                spinel.sync().get(k);
            }));
            measure("lettuce 10k virtual threads sync SET+GET x5", 100_000, () -> virtualThreads((k) -> {
                ls.set(k, value);
                ls.get(k);
            }));
            lettuce.close();
            lettuceClient.shutdown();
        } finally {
            ten.shutdown();
        }
    }

    private interface Producer {
        CompletableFuture<?> send(int producer, int i);
    }

    private static void producers(ExecutorService pool, Producer send) throws Exception {
        List<Future<?>> ts = new ArrayList<>();
        for (int p = 0; p < 10; p++) {
            int pp = p;
            ts.add(pool.submit(() -> {
                CompletableFuture<?>[] fs = new CompletableFuture<?>[10_000];
                for (int i = 0; i < 10_000; i++) {
                    fs[i] = send.send(pp, i);
                }
                CompletableFuture.allOf(fs).join();
            }));
        }
        for (Future<?> f : ts) {
            f.get();
        }
    }

    private static void virtualThreads(Consumer<String> setGet) {
        try (ExecutorService vt = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < 10_000; i++) {
                String key = "v" + i;
                vt.submit(() -> {
                    for (int j = 0; j < 5; j++) {
                        setGet.accept(key);
                    }
                });
            }
        }
    }
}
