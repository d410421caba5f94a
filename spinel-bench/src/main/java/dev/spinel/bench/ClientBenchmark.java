package dev.spinel.bench;

import dev.spinel.client.SpinelClient;
import io.lettuce.core.LettuceFutures;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.api.StatefulRedisConnection;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.JedisPoolConfig;
import redis.clients.jedis.Pipeline;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The client issue's three scenarios, spinel-client beside Lettuce and Jedis, in one JMH run, against
 * an embedded Spinel or a real redis-server ({@code target}):
 * <ul>
 *   <li>1000 pipelined PINGs, end to end;</li>
 *   <li>bulk load: 100,000 SETs from 10 producer threads;</li>
 *   <li>10,000 virtual threads each doing a synchronous SET and GET through one client.</li>
 * </ul>
 * Each client is used the way its users use it for the job: spinel-client's plain API, Lettuce with
 * and without manual flushing, Jedis with a {@code Pipeline} or a pool. Run with {@code -prof gc}.
 *
 * <p>Both servers run as processes of their own, outside the JMH fork: an embedded Spinel shared the
 * fork's JVM and its two cores with the clients' threads (10,000 virtual threads on a JedisPool stalled
 * there for minutes), which measures neither the server nor the clients. Spinel is started from the
 * fork's own class path ({@code dev.spinel.server.Main}) with the options {@code bin/spinel-server} uses.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-XX:+UseCompactObjectHeaders", "--sun-misc-unsafe-memory-access=allow",
        "--enable-native-access=ALL-UNNAMED"})
public class ClientBenchmark {
    private static final String VALUE = "x".repeat(32);

    @Param({"spinel", "redis"})
    public String target;

    private Process server;
    private int port;
    private SpinelClient<String, String> spinel;
    private RedisClient lettuceClient;
    private StatefulRedisConnection<String, String> lettuce;
    private StatefulRedisConnection<String, String> lettuceManual;
    private JedisPool jedisPool;
    private Jedis jedis;
    private ExecutorService producers;

    @Setup(Level.Trial)
    public void setup() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        List<String> command = new ArrayList<>();
        if (target.equals("spinel")) {
            String java = ProcessHandle.current().info().command().orElse("java");
            command.addAll(List.of(java, "-Dio.netty.leakDetection.level=disabled", "-XX:+UseCompactObjectHeaders",
                    "-XX:+UseZGC", "-Xms256m", "--sun-misc-unsafe-memory-access=allow", "--enable-native-access=ALL-UNNAMED",
                    "-cp", System.getProperty("java.class.path"), "dev.spinel.server.Main"));
        } else {
            command.add("redis-server");
        }
        command.addAll(List.of("--port", Integer.toString(port), "--bind", "127.0.0.1", "--save", "",
                "--appendonly", "no", "--dir", Files.createTempDirectory("bench-" + target).toString()));
        server = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        awaitPort(port);
        String uri = "redis://127.0.0.1:" + port;
        spinel = SpinelClient.create(uri);
        lettuceClient = RedisClient.create(uri);
        lettuce = lettuceClient.connect();
        lettuceManual = lettuceClient.connect();
        lettuceManual.setAutoFlushCommands(false);
        JedisPoolConfig pool = new JedisPoolConfig();
        pool.setMaxTotal(64);
        pool.setMaxIdle(64);
        pool.setMinIdle(64);
        jedisPool = new JedisPool(pool, "127.0.0.1", port);
        // A warm pool, as in a running application. Cold, 10,000 virtual threads racing into commons-pool2's
        // GenericObjectPool.create() spin on its makeObjectCountLock while one of them connects: the run
        // livelocked for minutes at 200% CPU with either server idle (thread dump, 2026-11-23).
        jedisPool.preparePool();
        jedis = new Jedis("127.0.0.1", port);
        producers = Executors.newFixedThreadPool(10);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        producers.shutdownNow();
        jedis.close();
        jedisPool.close();
        spinel.close();
        lettuce.close();
        lettuceManual.close();
        lettuceClient.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        server.destroy();
        try {
            server.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---- 1000 pipelined PINGs

    @Benchmark
    public Object pings1000SpinelClient() {
        List<CompletableFuture<String>> fs = new ArrayList<>(1000);
        for (int i = 0; i < 1000; i++) {
            fs.add(spinel.async().ping());
        }
        return CompletableFuture.allOf(fs.toArray(new CompletableFuture[0])).join();
    }

    /** The same, waiting on each future in turn (what Lettuce's {@code LettuceFutures.awaitAll} does), not through allOf's tree. */
    @Benchmark
    public Object pings1000SpinelJoinEach() {
        CompletableFuture<?>[] fs = new CompletableFuture<?>[1000];
        for (int i = 0; i < 1000; i++) {
            fs[i] = spinel.async().ping();
        }
        Object last = null;
        for (CompletableFuture<?> f : fs) {
            last = f.join();
        }
        return last;
    }

    @Benchmark
    public Object pings1000LettuceAutoFlush() {
        List<RedisFuture<String>> fs = new ArrayList<>(1000);
        for (int i = 0; i < 1000; i++) {
            fs.add(lettuce.async().ping());
        }
        return LettuceFutures.awaitAll(Duration.ofSeconds(10), fs.toArray(new RedisFuture[0]));
    }

    @Benchmark
    public Object pings1000LettuceManualFlush() {
        List<RedisFuture<String>> fs = new ArrayList<>(1000);
        for (int i = 0; i < 1000; i++) {
            fs.add(lettuceManual.async().ping());
        }
        lettuceManual.flushCommands();
        return LettuceFutures.awaitAll(Duration.ofSeconds(10), fs.toArray(new RedisFuture[0]));
    }

    @Benchmark
    public Object pings1000JedisPipeline() {
        Pipeline p = jedis.pipelined();
        for (int i = 0; i < 1000; i++) {
            p.sendCommand(redis.clients.jedis.Protocol.Command.PING, new String[0]);
        }
        p.sync();
        return p;
    }

    // ---- 100,000 SETs from 10 producer threads

    @Benchmark
    public void bulk100kSpinelClient() throws Exception {
        run10(producer -> {
            CompletableFuture<?>[] fs = new CompletableFuture<?>[10_000];
            for (int i = 0; i < 10_000; i++) {
                fs[i] = spinel.async().set("k" + producer + ":" + i, VALUE);
            }
            CompletableFuture.allOf(fs).join();
        });
    }

    @Benchmark
    public void bulk100kLettuceSharedConnection() throws Exception {
        run10(producer -> {
            RedisFuture<?>[] fs = new RedisFuture<?>[10_000];
            for (int i = 0; i < 10_000; i++) {
                fs[i] = lettuce.async().set("k" + producer + ":" + i, VALUE);
            }
            LettuceFutures.awaitAll(Duration.ofSeconds(30), fs);
        });
    }

    @Benchmark
    public void bulk100kJedisPoolPipeline200() throws Exception {
        run10(producer -> {
            try (Jedis j = jedisPool.getResource()) {
                Pipeline p = j.pipelined();
                for (int i = 0; i < 10_000; i++) {
                    p.set("k" + producer + ":" + i, VALUE);
                    if (i % 200 == 199) {
                        p.sync();
                    }
                }
                p.sync();
            }
        });
    }

    // ---- 10,000 virtual threads, synchronous SET + GET each

    @Benchmark
    public void virtual10kSpinelClient() {
        virtualThreads(key -> {
            spinel.sync().set(key, VALUE);
            spinel.sync().get(key);
        });
    }

    @Benchmark
    public void virtual10kLettuce() {
        virtualThreads(key -> {
            lettuce.sync().set(key, VALUE);
            lettuce.sync().get(key);
        });
    }

    @Benchmark
    public void virtual10kJedisPool64() {
        virtualThreads(key -> {
            try (Jedis j = jedisPool.getResource()) {
                j.set(key, VALUE);
                j.get(key);
            }
        });
    }

    private interface Producer {
        void run(int producer) throws Exception;
    }

    private void run10(Producer body) throws Exception {
        List<Future<?>> fs = new ArrayList<>(10);
        for (int p = 0; p < 10; p++) {
            int producer = p;
            fs.add(producers.submit(() -> {
                body.run(producer);
                return null;
            }));
        }
        for (Future<?> f : fs) {
            f.get();
        }
    }

    private static void virtualThreads(Consumer<String> setGet) {
        try (ExecutorService vt = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < 10_000; i++) {
                String key = "v" + i;
                vt.submit(() -> setGet.accept(key));
            }
        }
    }

    private void awaitPort(int port) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline && server.isAlive()) {
            try (Socket s = new Socket("127.0.0.1", port)) {
                return;
            } catch (IOException notYet) {
                Thread.sleep(20);
            }
        }
        throw new IllegalStateException(target + " server did not start on port " + port);
    }
}
