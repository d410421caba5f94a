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
 * The hot operation of each collection type through the engine (lookup, arity, handler, reply), on
 * collections of realistic size: a list used as a queue, a 100-field hash, a 1,000-member set and
 * sorted set (so the sets are in their big encodings: hashtable, skiplist). Run with {@code -prof gc}
 * to see allocation per operation.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-XX:+UseCompactObjectHeaders", "--sun-misc-unsafe-memory-access=allow",
        "--enable-native-access=ALL-UNNAMED"})
public class CollectionsBenchmark {
    private SpinelServer server;
    private Engine engine;
    private Session session;
    private int n;
    private Args lpush;
    private Args rpop;
    private Args hset;
    private Args hget;
    private Args sismember;
    private Args sadd;
    private Args zscore;
    private Args zincrby;
    private Args zrange;
    private Args lrange;

    @Setup(Level.Trial)
    public void setup() {
        server = SpinelServer.start(ServerConfig.defaults().with("port", "0"));
        engine = server.engine();
        session = engine.open(new InternalConnection("bench:0"));
        for (int i = 0; i < 1000; i++) {
            run(Args.of("SADD", "set", "member:" + i));
            run(Args.of("ZADD", "zset", Integer.toString(i), "member:" + i));
            if (i < 100) {
                run(Args.of("HSET", "hash", "field:" + i, "value:" + i));
                run(Args.of("RPUSH", "list100", "item:" + i));
            }
        }
        lpush = Args.of("LPUSH", "queue", "x".repeat(32));
        rpop = Args.of("RPOP", "queue");
        hset = Args.of("HSET", "hash", "field:7", "y".repeat(32));
        hget = Args.of("HGET", "hash", "field:42");
        sismember = Args.of("SISMEMBER", "set", "member:500");
        sadd = Args.of("SADD", "set", "member:500");
        zscore = Args.of("ZSCORE", "zset", "member:500");
        zincrby = Args.of("ZINCRBY", "zset", "0", "member:500");
        zrange = Args.of("ZRANGE", "zset", "0", "9");
        lrange = Args.of("LRANGE", "list100", "0", "99");
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        server.close();
    }

    private int run(Args a) {
        engine.execute(session, a);
        int size = session.out().size();
        if (++n % 256 == 0) {
            session.out().clear();
        }
        return size;
    }

    @Benchmark
    public int lpushThenRpop() {
        run(lpush);
        return run(rpop);
    }

    @Benchmark
    public int hset() {
        return run(hset);
    }

    @Benchmark
    public int hget() {
        return run(hget);
    }

    @Benchmark
    public int saddExisting() {
        return run(sadd);
    }

    @Benchmark
    public int sismember() {
        return run(sismember);
    }

    @Benchmark
    public int zscore() {
        return run(zscore);
    }

    @Benchmark
    public int zincrby() {
        return run(zincrby);
    }

    @Benchmark
    public int zrangeFirst10() {
        return run(zrange);
    }

    @Benchmark
    public int lrange100() {
        return run(lrange);
    }
}
