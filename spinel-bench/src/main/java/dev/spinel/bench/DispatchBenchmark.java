package dev.spinel.bench;

import dev.spinel.protocol.Args;
import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.engine.Session;
import dev.spinel.server.engine.ports.InternalConnection;
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

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.concurrent.TimeUnit;

/**
 * The engine path of one command without the network: lookup by bytes, arity, the handler, the
 * reply encoded into the session's buffer (cleared every 1000 commands, as a flush would).
 * Run with {@code -prof gc} to see allocation per operation. {@code cluster=yes} runs it on a one-node
 * cluster serving every slot (the routing check of every request, the slot-indexed keyspace, the cluster's
 * threads beside it); compare with {@code -p cluster=no,yes}. JMH's thread is not an event loop: there the routing's
 * lease check reads the clock for every command (~20 ns here), where a loop uses its read batch's reading, so the
 * difference overstates what cluster mode costs a loop (GET 116 against 157 ns/op, 2026-11-30).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-XX:+UseCompactObjectHeaders", "--sun-misc-unsafe-memory-access=allow",
        "--enable-native-access=ALL-UNNAMED"})
public class DispatchBenchmark {
    /** cluster-enabled: a one-node cluster serving all 16384 slots, or a standalone server. */
    @Param({"no", "yes"})
    public String cluster;

    private SpinelServer server;
    private Engine engine;
    private Session session;
    private Args get;
    private Args set;
    private int n;

    @Setup(Level.Trial)
    public void setup() throws Exception {
        ServerConfig config = ServerConfig.defaults().with("port", "0").with("grpc-port", "0");
        if (cluster.equals("yes")) {
            // the port is fixed in cluster mode: its bus port (+10000) must be free and below the ephemeral range
            config = config.with("port", "22751").with("cluster-enabled", "yes")
                    .with("dir", Files.createTempDirectory("spinel-dispatch").toString());
        }
        server = SpinelServer.start(config);
        engine = server.engine();
        session = engine.open(new InternalConnection("bench:0"));
        if (cluster.equals("yes")) {
            engine.execute(session, Args.of("CLUSTER", "ADDSLOTSRANGE", "0", "16383"));
            awaitClusterOk();
        }
        set = Args.of("SET", "key:00000001", "v".repeat(256));
        get = Args.of("GET", "key:00000001");
        engine.execute(session, set);
    }

    private void awaitClusterOk() throws InterruptedException {
        Args info = Args.of("CLUSTER", "INFO");
        for (int i = 0; i < 300; i++) {
            session.out().clear();
            engine.execute(session, info);
            if (new String(session.out().array(), 0, session.out().size(), StandardCharsets.US_ASCII)
                    .contains("cluster_state:ok")) {
                session.out().clear();
                return;
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("the one-node cluster did not reach cluster_state:ok");
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        server.close();
    }

    @Benchmark
    public int get() {
        engine.execute(session, get);
        return clearSometimes();
    }

    @Benchmark
    public int set() {
        engine.execute(session, set);
        return clearSometimes();
    }

    private int clearSometimes() {
        int size = session.out().size();
        if (++n % 1000 == 0) {
            session.out().clear();
        }
        return size;
    }
}
