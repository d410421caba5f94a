package dev.spinel.bench;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.ProtocolException;
import dev.spinel.protocol.QueryBuffer;
import dev.spinel.protocol.RespParser;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/** Parsing a read batch of 30 pipelined {@code SET key:NNNNNNNN <256 bytes>} requests. */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-XX:+UseCompactObjectHeaders"})
public class ParserBenchmark {
    private byte[] batch;
    private QueryBuffer buffer;
    private RespParser parser;
    private Args args;

    @Setup
    public void setup() {
        StringBuilder sb = new StringBuilder();
        String value = "v".repeat(256);
        for (int i = 0; i < 30; i++) {
            String key = String.format("key:%08d", i);
            sb.append("*3\r\n$3\r\nSET\r\n$").append(key.length()).append("\r\n").append(key)
                    .append("\r\n$256\r\n").append(value).append("\r\n");
        }
        batch = sb.toString().getBytes(StandardCharsets.US_ASCII);
        buffer = new QueryBuffer();
        args = new Args();
        parser = new RespParser(buffer, args);
    }

    /** One read batch: append, parse all 30 requests; result is the sum of argument lengths. */
    @Benchmark
    public long parseBatchOf30Sets() throws ProtocolException {
        buffer.append(batch, 0, batch.length);
        long total = 0;
        while (parser.next()) {
            total += args.length(2);
        }
        buffer.compactIfEmpty();
        return total;
    }
}
