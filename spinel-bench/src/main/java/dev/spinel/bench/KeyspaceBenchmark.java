package dev.spinel.bench;

import dev.spinel.store.Database;
import dev.spinel.store.Entry;
import dev.spinel.store.KeyHash;
import dev.spinel.store.Keyspace;
import dev.spinel.store.Segment;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/** Keyspace lookups and overwrites under the stripe lock, on a database of {@code keys} string keys. */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-XX:+UseCompactObjectHeaders"})
public class KeyspaceBenchmark {
    @Param({"1000000"})
    public int keys;

    private Database db;
    private byte[][] names;
    private byte[] value;
    private int next;

    @Setup
    public void setup() {
        db = new Keyspace(1).db(0);
        names = new byte[keys][];
        value = new byte[32];
        for (int i = 0; i < keys; i++) {
            names[i] = String.format("key:%010d", i).getBytes(StandardCharsets.US_ASCII);
            int h = KeyHash.hash(names[i]);
            Segment s = db.segment(h);
            s.lock();
            try {
                s.insert(names[i], h, value, -1);
            } finally {
                s.unlock();
            }
        }
    }

    @Benchmark
    public Object get() {
        byte[] k = names[next++ % keys];
        int h = KeyHash.hash(k, 0, k.length);
        Segment s = db.segment(h);
        s.lock();
        try {
            Entry e = s.get(k, 0, k.length, h, 0);
            return e.value();
        } finally {
            s.unlock();
        }
    }

    @Benchmark
    public Object overwrite() {
        byte[] k = names[next++ % keys];
        int h = KeyHash.hash(k, 0, k.length);
        Segment s = db.segment(h);
        s.lock();
        try {
            Entry e = s.get(k, 0, k.length, h, 0);
            return s.replaceValue(e, new byte[32]);
        } finally {
            s.unlock();
        }
    }
}
