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
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * The engine path of one command without the network: lookup by bytes, arity, the handler, the
 * reply encoded into the session's buffer (cleared every 1000 commands, as a flush would).
 * Run with {@code -prof gc} to see allocation per operation.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-XX:+UseCompactObjectHeaders", "--sun-misc-unsafe-memory-access=allow",
        "--enable-native-access=ALL-UNNAMED"})
public class DispatchBenchmark {
    private SpinelServer server;
    private Engine engine;
    private Session session;
    private Args get;
    private Args set;
    private int n;

    @Setup(Level.Trial)
    public void setup() {
        server = SpinelServer.start(ServerConfig.defaults().with("port", "0"));
        engine = server.engine();
        session = engine.open(new InternalConnection("bench:0"));
        set = Args.of("SET", "key:00000001", "v".repeat(256));
        get = Args.of("GET", "key:00000001");
        engine.execute(session, set);
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
