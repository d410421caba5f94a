package dev.spinel.bench;

import dev.spinel.protocol.Args;
import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.engine.ClientConnection;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.engine.Session;
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
        session = engine.open(new NoConnection());
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

    /** A connection that goes nowhere: the benchmark reads the reply buffer itself. */
    static final class NoConnection implements ClientConnection {
        @Override
        public String remoteAddress() {
            return "127.0.0.1:1";
        }

        @Override
        public String localAddress() {
            return "127.0.0.1:6379";
        }

        @Override
        public void closeAfterReply() {
        }

        @Override
        public void kill() {
        }

        @Override
        public void execute(Runnable task) {
            task.run();
        }

        @Override
        public void flushReplies() {
        }

        @Override
        public long pendingOutputBytes() {
            return 0;
        }

        @Override
        public java.util.concurrent.Future<?> schedule(Runnable task, long delayMillis) {
            task.run();
            return java.util.concurrent.CompletableFuture.completedFuture(null);
        }

        @Override
        public void suspend(Args retry) {
        }

        @Override
        public void resume() {
        }

        @Override
        public boolean suspended() {
            return false;
        }
    }
}
