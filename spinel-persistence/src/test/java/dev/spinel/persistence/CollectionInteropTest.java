package dev.spinel.persistence;

import dev.spinel.store.Keyspace;
import dev.spinel.store.types.CollectionSettings;
import dev.spinel.store.types.SetLimits;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Lists, hashes, sets and sorted sets against the real redis-server 7.0, in every encoding it writes:
 * Redis fills a dataset (small and large values, integers of every width, expiries, several dbs) and
 * saves it; Spinel loads that file and writes its own; {@code redis-check-rdb} accepts ours and a fresh
 * redis-server loading it reports the same {@code DEBUG DIGEST} (a digest of every key, value and
 * expiry, independent of encodings). The same with Redis's encoding thresholds lowered (hashtable,
 * skip list, one element per quicklist node) and raised (everything listpack/intset). DUMP payloads
 * go both ways too: Redis's DUMP decoded and re-encoded by Spinel RESTOREs to the same value digest.
 */
class CollectionInteropTest {
    @TempDir
    Path dir;

    private static final String FILL = String.join("\n",
            "local big = tonumber(ARGV[1])",
            "for db = 0, 2 do",
            "  redis.call('select', db)",
            "  redis.call('rpush', 'l:s', 'a', 'b', '1', '-3', '0', '127', '-128', '4095', '-4096', '32767', '-32768',",
            "      '8388607', '-8388608', '2147483647', '-2147483648', '9223372036854775807', '-9223372036854775808', '007', '1.5', '')",
            "  redis.call('hset', 'h:s', 'f1', 'v1', 'f2', '2', '3', '-70000', 'e', '')",
            "  redis.call('sadd', 's:int', '1', '2', '3', '-5', '70000', '5000000000', '-9223372036854775808')",
            "  redis.call('sadd', 's:str', 'a', 'b', 'c', '')",
            "  redis.call('zadd', 'z:s', '1', 'a', '2.5', 'b', '-inf', 'c', 'inf', 'd', '0', 'e', '1e300', 'f', '-0.1', 'g', '3', '12')",
            "  for i = 1, big do",
            "    redis.call('rpush', 'l:big', string.rep('x', i % 70) .. i)",
            "    redis.call('lpush', 'l:ints', i * 997 - 300000)",
            "    redis.call('hset', 'h:big', 'f' .. i, 'v' .. (i * 31))",
            "    redis.call('sadd', 's:big', 'm' .. i)",
            "    redis.call('sadd', 's:bigint', i * 7919)",
            "    redis.call('zadd', 'z:big', i * 1.5 - 100, 'm' .. i)",
            "  end",
            "  redis.call('hset', 'h:long', 'f', string.rep('y', 100))",
            "  redis.call('zadd', 'z:long', 1, string.rep('z', 100))",
            "  redis.call('rpush', 'l:long', 'short', string.rep('q', 20000), string.rep('w', 5000), 'end')",
            "  redis.call('pexpire', 'h:s', 100000000 + db)",
            "  redis.call('pexpire', 'l:big', 200000000)",
            "  redis.call('pexpire', 'z:s', 300000000)",
            "  redis.call('pexpire', 's:int', 400000000)",
            "end",
            "return redis.call('dbsize')");

    @BeforeAll
    static void codecs() {
        CollectionCodecs.register(ValueCodecs.standard(), CollectionSettings.DEFAULTS, new SetLimits());
    }

    @Test
    void defaultEncodings() throws Exception {
        roundTrip("default", List.of());
    }

    @Test
    void bigEncodingsForced() throws Exception {
        roundTrip("low", List.of("--hash-max-listpack-entries", "0", "--zset-max-listpack-entries", "0",
                "--set-max-intset-entries", "0", "--list-max-listpack-size", "1"));
    }

    @Test
    void compactEncodingsForced() throws Exception {
        roundTrip("high", List.of("--hash-max-listpack-entries", "5000", "--hash-max-listpack-value", "30000",
                "--zset-max-listpack-entries", "5000", "--zset-max-listpack-value", "30000",
                "--set-max-intset-entries", "5000", "--list-max-listpack-size", "-5"));
    }

    private void roundTrip(String name, List<String> thresholds) throws Exception {
        Path redisFile = dir.resolve(name + "-redis.rdb");
        Path ourFile = dir.resolve(name + "-spinel.rdb");
        String digest;
        Map<String, byte[]> dumps = new HashMap<>();
        Map<String, String> valueDigests = new HashMap<>();
        try (Redis r = new Redis(name + "-redis.rdb", thresholds)) {
            assertEquals(":14", r.call("eval", FILL, "0", "1000"));
            digest = r.call("debug", "digest");
            for (String k : List.of("l:s", "l:big", "l:ints", "l:long", "h:s", "h:big", "h:long", "s:int", "s:str",
                    "s:big", "s:bigint", "z:s", "z:big", "z:long")) {
                dumps.put(k, r.bulk("dump", k));
                valueDigests.put(k, r.call("debug", "digest-value", k));
            }
            assertEquals("+OK", r.call("save"));
        }
        Keyspace ks = new Keyspace(16);
        KeyspaceLoader loader = new KeyspaceLoader(ks, System.currentTimeMillis());
        assertTrue(RdbFiles.load(ks, redisFile, loader));
        assertEquals(42, loader.loaded());
        RdbFiles.save(ks, ourFile, new RdbWriter.Options(true, true, RdbWriter.Access.NONE,
                RdbWriter.Options.redisAux("7.0.15", 1000, false)));

        Process check = new ProcessBuilder("redis-check-rdb", ourFile.toString()).redirectErrorStream(true).start();
        String report = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(check.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, check.exitValue(), report);
        assertTrue(report.contains("RDB looks OK"), report);

        try (Redis r = new Redis(name + "-spinel.rdb", List.of())) {
            assertEquals(":14", r.call("dbsize"));
            assertEquals(digest, r.call("debug", "digest"));
            // DUMP from Redis -> Spinel value -> Spinel DUMP -> RESTORE in Redis: the same value.
            for (Map.Entry<String, byte[]> d : dumps.entrySet()) {
                assertTrue(DumpPayload.verify(d.getValue()), d.getKey());
                Object v = DumpPayload.read(ValueCodecs.standard(), d.getValue());
                ValueCodec codec = ValueCodecs.standard().forValue(v);
                byte[] ours = DumpPayload.create(codec, codec.snapshot(v));
                String copy = "copy:" + d.getKey();
                assertEquals("+OK", r.callBytes("restore".getBytes(), copy.getBytes(StandardCharsets.UTF_8),
                        // the value digest marks a key with a TTL (any TTL): give the copy one too
                        (Set.of("h:s", "l:big", "z:s", "s:int").contains(d.getKey()) ? "100000000" : "0").getBytes(), ours));
                assertEquals(valueDigests.get(d.getKey()), r.call("debug", "digest-value", copy), d.getKey());
            }
        }
    }

    /** A redis-server on a free port with a minimal RESP client. */
    final class Redis implements AutoCloseable {
        final Process process;
        final Socket socket;
        final OutputStream out;
        final InputStream in;

        Redis(String dbfilename, List<String> extra) throws Exception {
            int port = RdbInteropTest.freePort();
            List<String> cmd = new ArrayList<>(List.of("redis-server", "--port", Integer.toString(port), "--dir", dir.toString(),
                    "--dbfilename", dbfilename, "--save", "", "--enable-debug-command", "yes"));
            cmd.addAll(extra);
            process = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(dir.resolve(dbfilename + ".log").toFile()).start();
            RdbInteropTest.waitReady(port);
            socket = new Socket("127.0.0.1", port);
            out = socket.getOutputStream();
            in = new BufferedInputStream(socket.getInputStream());
        }

        String call(String... args) throws IOException {
            byte[][] b = new byte[args.length][];
            for (int i = 0; i < args.length; i++) {
                b[i] = args[i].getBytes(StandardCharsets.UTF_8);
            }
            return callBytes(b);
        }

        byte[] bulk(String... args) throws IOException {
            String r = call(args);
            if (!r.startsWith("$")) {
                throw new AssertionError(r);
            }
            return lastBulk;
        }

        private byte[] lastBulk;

        String callBytes(byte[]... args) throws IOException {
            ByteArrayOutputStream req = new ByteArrayOutputStream();
            req.write(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            for (byte[] a : args) {
                req.write(("$" + a.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
                req.write(a);
                req.write("\r\n".getBytes(StandardCharsets.US_ASCII));
            }
            out.write(req.toByteArray());
            out.flush();
            String line = line();
            if (line.startsWith("*")) { // DEBUG DIGEST-VALUE: an array of status replies
                StringBuilder sb = new StringBuilder(line);
                for (int i = Integer.parseInt(line.substring(1)); i > 0; i--) {
                    sb.append(' ').append(line());
                }
                return sb.toString();
            }
            if (line.startsWith("$")) {
                int n = Integer.parseInt(line.substring(1));
                lastBulk = in.readNBytes(n);
                in.readNBytes(2);
                return n < 0 ? "$-1" : "$" + new String(lastBulk, StandardCharsets.ISO_8859_1);
            }
            return line;
        }

        private String line() throws IOException {
            StringBuilder sb = new StringBuilder();
            int c;
            while ((c = in.read()) != '\r') {
                if (c < 0) {
                    throw new IOException("connection closed");
                }
                sb.append((char) c);
            }
            in.read();
            return sb.toString();
        }

        @Override
        public void close() throws Exception {
            socket.close();
            process.destroy();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }
}
