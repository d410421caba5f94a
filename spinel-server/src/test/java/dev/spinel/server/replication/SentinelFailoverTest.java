package dev.spinel.server.replication;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import dev.spinel.server.testing.SpinelProcess;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisSentinelPool;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static dev.spinel.server.replication.ReplicationTest.info;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue #17's Sentinel acceptance with real processes: three Sentinels (quorum 2, {@code down-after-milliseconds
 * 2000}) monitor a Spinel master with two Spinel replicas, each a JVM of its own; Jedis ({@link JedisSentinelPool})
 * and Lettuce (a Sentinel {@link RedisURI}) write through Sentinel, each write followed by {@code WAIT 1 100}, and
 * every write WAIT acknowledged is recorded. Then:
 * <ol>
 *   <li>kill -9 of the master: a replica is promoted in under 10 s and the clients write to it;</li>
 *   <li>SIGSTOP of the new master for at least twice the down-after time (until Sentinel has switched), then SIGCONT:
 *       the last replica is promoted, and the stopped master, once resumed, becomes a replica of it (Sentinel
 *       reconfigures it) without keeping a write it took in the meantime (those find no replica: WAIT says 0).</li>
 * </ol>
 * At the end every acknowledged write is on the final master.
 */
class SentinelFailoverTest {
    private static final int DOWN_AFTER_MS = 2000;

    private final Map<String, String> acked = new ConcurrentHashMap<>();
    private final Map<String, Long> ackedAt = new ConcurrentHashMap<>();
    private final Map<String, Long> sentAt = new ConcurrentHashMap<>();
    private final AtomicBoolean writing = new AtomicBoolean(true);
    /** When the current fault began, and the first acknowledgement after it (0: none yet). */
    private volatile long faultNanos;
    private final long t0 = System.nanoTime();
    private volatile long killedAt;
    private volatile long stoppedAtNanos;
    private final AtomicLong firstAckAfterFault = new AtomicLong();

    @Test
    void threeSentinelsFailOverSpinelOnKillAndStopWithoutLosingAWaitAcknowledgedWrite() throws Exception {
        Path dir = Files.createTempDirectory("spinel-sentinels");
        List<Process> processes = new ArrayList<>();
        List<Thread> writers = new ArrayList<>();
        JedisSentinelPool pool = null;
        RedisClient lettuce = null;
        try {
            int[] ports = {RedisServerProcess.freePort(), RedisServerProcess.freePort(), RedisServerProcess.freePort()};
            Process[] nodes = new Process[3];
            for (int i = 0; i < 3; i++) {
                List<String> args = new ArrayList<>(List.of("--port", Integer.toString(ports[i]), "--bind", "127.0.0.1",
                        "--save", "", "--grpc-port", "0", "--repl-diskless-sync-delay", "0",
                        "--logfile", dir.resolve("node" + i + ".log").toString(), "--dir", dir.toString(),
                        "--dbfilename", "dump" + i + ".rdb"));
                if (i > 0) {
                    args.addAll(List.of("--replicaof", "127.0.0.1 " + ports[0]));
                }
                nodes[i] = start(SpinelProcess.command(args.toArray(String[]::new)), dir.resolve("node" + i + ".out"));
                processes.add(nodes[i]);
            }
            for (int port : ports) {
                awaitPort(port, dir);
            }
            awaitReplicas(ports[0], 2, dir);

            int[] sentinelPorts = new int[3];
            for (int i = 0; i < 3; i++) {
                sentinelPorts[i] = RedisServerProcess.freePort();
                Path conf = dir.resolve("sentinel" + i + ".conf");
                Files.writeString(conf, String.join("\n", List.of(
                        "port " + sentinelPorts[i], "bind 127.0.0.1", "dir " + dir,
                        "sentinel monitor mymaster 127.0.0.1 " + ports[0] + " 2",
                        "sentinel down-after-milliseconds mymaster " + DOWN_AFTER_MS,
                        "sentinel failover-timeout mymaster 10000", "")));
                processes.add(start(List.of(RedisServerProcess.executable(), conf.toString(), "--sentinel"),
                        dir.resolve("sentinel" + i + ".log")));
            }
            for (int port : sentinelPorts) {
                awaitPort(port, dir);
                // each Sentinel knows the two replicas and the two other Sentinels before the first fault
                await(() -> sentinel(port, "SENTINEL", "REPLICAS", "mymaster").contains(Integer.toString(ports[2]))
                        && sentinel(port, "SENTINEL", "REPLICAS", "mymaster").contains(Integer.toString(ports[1]))
                        && sentinel(port, "SENTINEL", "SENTINELS", "mymaster").split("\r\n\\*").length >= 3,
                        30, "Sentinel on " + port + " never saw the replicas and the other Sentinels", dir);
            }

            pool = new JedisSentinelPool("mymaster", Set.of("127.0.0.1:" + sentinelPorts[0],
                    "127.0.0.1:" + sentinelPorts[1], "127.0.0.1:" + sentinelPorts[2]));
            JedisSentinelPool jedisPool = pool;
            writers.add(writer("jedis", () -> {
                // a fresh Jedis per write: the pool hands out the current master's connections after a switch
                return (key, value) -> {
                    try (Jedis j = jedisPool.getResource()) {
                        j.set(key, value);
                        return j.waitReplicas(1, 100);
                    }
                };
            }));
            lettuce = RedisClient.create(RedisURI.Builder.sentinel("127.0.0.1", sentinelPorts[0], "mymaster")
                    .withSentinel("127.0.0.1", sentinelPorts[1]).withSentinel("127.0.0.1", sentinelPorts[2])
                    .withTimeout(Duration.ofSeconds(1)).build());
            // No reconnect with replay: Lettuce resends a command that got no reply on the new connection, so a
            // WAIT cut off on the old master (Sentinel's CLIENT KILL) would be answered by the new one, for a SET
            // that the old master took and lost. A new connection (resolved through Sentinel) after any error.
            lettuce.setOptions(ClientOptions.builder().autoReconnect(false).build());
            RedisClient lettuceClient = lettuce;
            writers.add(writer("lettuce", () -> {
                StatefulRedisConnection<String, String> c = lettuceClient.connect();
                return new Write() {
                    @Override
                    public long apply(String key, String value) {
                        c.sync().set(key, value);
                        return c.sync().waitForReplication(1, 100);
                    }

                    @Override
                    public void close() {
                        c.closeAsync();
                    }
                };
            }));
            awaitAcks(50, dir);

            // 1. kill -9 of the master
            int master = ports[0];
            long killed = System.nanoTime();
            killedAt = killed;
            faultNanos = killed;
            nodes[0].destroyForcibly();
            int promoted = awaitNewMaster(sentinelPorts[0], master, dir);
            double promotion = (System.nanoTime() - killed) / 1e9;
            long acksAtPromotion = acked.size();
            awaitAcks(acksAtPromotion + 50, dir);
            double firstWrites = (firstAckAfterFault.get() - killed) / 1e9;
            System.out.printf("kill -9: %d promoted after %.1f s; writes acknowledged again %.1f s after the kill%n",
                    promoted, promotion, firstWrites);
            assertTrue(promotion < 10, "promotion took " + promotion + " s");

            // 2. SIGSTOP of the new master until Sentinel has switched (at least twice the down-after time)
            int stoppedPort = promoted;
            Process stopped = nodes[stoppedPort == ports[1] ? 1 : 2];
            firstAckAfterFault.set(0);
            long stoppedAt = System.nanoTime();
            stoppedAtNanos = stoppedAt;
            faultNanos = stoppedAt;
            signal(stopped, "STOP");
            int next = awaitNewMaster(sentinelPorts[1], stoppedPort, dir);
            double secondPromotion = (System.nanoTime() - stoppedAt) / 1e9;
            long minStopNanos = TimeUnit.MILLISECONDS.toNanos(2L * DOWN_AFTER_MS);
            while (System.nanoTime() - stoppedAt < minStopNanos) {
                Thread.sleep(50);
            }
            signal(stopped, "CONT");
            System.out.printf("SIGSTOP: %d promoted after %.1f s%n", next, secondPromotion);
            awaitAcks(acked.size() + 20, dir);
            System.out.printf("SIGSTOP: writes acknowledged again %.1f s after the stop%n",
                    (firstAckAfterFault.get() - stoppedAt) / 1e9);
            assertTrue(secondPromotion < 10, "promotion took " + secondPromotion + " s");
            // the resumed master is turned into a replica of the new one and catches up
            await(() -> {
                Map<String, String> i = infoOf(stoppedPort);
                return "slave".equals(i.get("role")) && Integer.toString(next).equals(i.get("master_port"))
                        && "up".equals(i.get("master_link_status"));
            }, 30, "the stopped master never became a replica of " + next, dir);
            awaitAcks(acked.size() + 50, dir);

            writing.set(false);
            for (Thread w : writers) {
                w.join(10_000);
            }
            try (RawClient c = new RawClient(next)) {
                List<String> lost = new ArrayList<>();
                for (Map.Entry<String, String> e : acked.entrySet()) {
                    String want = "$" + e.getValue().length() + "\r\n" + e.getValue() + "\r\n";
                    if (!want.equals(c.callString("GET", e.getKey()))) {
                        lost.add(e.getKey() + " sent " + (sentAt.get(e.getKey()) - t0) / 1e6 + " ms, acked "
                                + (ackedAt.get(e.getKey()) - t0) / 1e6 + " ms after the start; kill at " + (killedAt - t0) / 1e6
                                + ", stop at " + (stoppedAtNanos - t0) / 1e6);
                    }
                }
                assertEquals(List.of(), lost, "acknowledged writes missing on the final master (" + acked.size() + " acknowledged)");
            }
        } finally {
            writing.set(false);
            for (Thread w : writers) {
                w.join(5_000);
            }
            if (pool != null) {
                pool.close();
            }
            if (lettuce != null) {
                lettuce.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
            for (Process p : processes) {
                signal(p, "CONT");
                p.destroyForcibly();
                p.waitFor(5, TimeUnit.SECONDS);
            }
        }
    }

    /** One client's write: SET key value, then WAIT 1 100's count. */
    private interface Write extends AutoCloseable {
        long apply(String key, String value) throws Exception;

        @Override
        default void close() {
        }
    }

    private interface WriteFactory {
        Write open() throws Exception;
    }

    /** A thread writing {@code name:n} = n until told to stop, recording what WAIT acknowledged; errors mean retry. */
    private Thread writer(String name, WriteFactory factory) {
        Thread t = new Thread(() -> {
            Write write = null;
            long n = 0;
            while (writing.get()) {
                String key = name + ":" + n;
                String value = Long.toString(n);
                try {
                    if (write == null) {
                        write = factory.open();
                    }
                    long sent = System.nanoTime();
                    if (write.apply(key, value) >= 1) {
                        acked.put(key, value);
                        long now = System.nanoTime();
                        ackedAt.put(key, now);
                        sentAt.put(key, sent);
                        if (faultNanos != 0 && now - faultNanos > 0) {
                            firstAckAfterFault.compareAndSet(0, now);
                        }
                    }
                    n++;
                } catch (Exception | Error refusedOrDown) {
                    n++; // a key whose write may or may not have landed is never reused
                    if (write != null) {
                        write.close();
                        write = null;
                    }
                    try {
                        Thread.sleep(50);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
        }, "writer-" + name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    private void awaitAcks(long count, Path dir) throws Exception {
        await(() -> acked.size() >= count, 30, "writes stopped being acknowledged at " + acked.size(), dir);
    }

    private static int awaitNewMaster(int sentinelPort, int oldMaster, Path dir) throws Exception {
        int[] found = new int[1];
        await(() -> {
            String reply = sentinel(sentinelPort, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", "mymaster");
            String[] lines = reply.split("\r\n");
            if (lines.length < 5) {
                return false;
            }
            int port = Integer.parseInt(lines[4]);
            if (port == oldMaster || !"master".equals(infoOf(port).get("role"))) {
                return false;
            }
            found[0] = port;
            return true;
        }, 30, "Sentinel never promoted a replica of " + oldMaster, dir);
        return found[0];
    }

    private static String sentinel(int port, String... args) throws Exception {
        try (RawClient c = new RawClient(port)) {
            return c.callString(args);
        }
    }

    private static Map<String, String> infoOf(int port) {
        // the promotion's CLIENT KILL TYPE normal drops clients: a new one per look
        try (RawClient c = new RawClient(port)) {
            return info(c);
        } catch (Exception downOrStopped) {
            return Map.of();
        }
    }

    private static void awaitReplicas(int port, int count, Path dir) throws Exception {
        await(() -> {
            Map<String, String> i = infoOf(port);
            return Integer.toString(count).equals(i.get("connected_slaves"))
                    && i.getOrDefault("slave" + (count - 1), "").contains("state=online");
        }, 30, "the replicas never came online", dir);
    }

    private interface Condition {
        boolean holds() throws Exception;
    }

    private static void await(Condition c, int seconds, String failure, Path dir) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (true) {
            try {
                if (c.holds()) {
                    return;
                }
            } catch (IOException notYet) {
                // a node or Sentinel between lives: look again
            }
            assertTrue(System.nanoTime() < deadline, failure + "\n" + logs(dir));
            Thread.sleep(100);
        }
    }

    private static String logs(Path dir) throws IOException {
        StringBuilder all = new StringBuilder();
        try (var files = Files.list(dir)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".log")).sorted().toList()) {
                List<String> lines = Files.readAllLines(f);
                all.append("== ").append(f.getFileName()).append('\n');
                lines.subList(Math.max(0, lines.size() - 40), lines.size()).forEach(l -> all.append(l).append('\n'));
            }
        }
        return all.toString();
    }

    private static Process start(List<String> command, Path output) throws IOException {
        return new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(output.toFile())).start();
    }

    private static void signal(Process p, String signal) throws Exception {
        if (p.isAlive()) {
            new ProcessBuilder("kill", "-" + signal, Long.toString(p.pid())).start().waitFor(5, TimeUnit.SECONDS);
        }
    }

    private static void awaitPort(int port, Path dir) throws Exception {
        await(() -> {
            try (Socket s = new Socket("127.0.0.1", port)) {
                return true;
            }
        }, 30, "nothing listens on " + port, dir);
    }
}
