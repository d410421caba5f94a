package dev.spinel.server.replication;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What {@code redis-cli --rdb} and {@code --functions-rdb} ask a master for (REPLCONF rdb-only 1 and rdb-filter-only
 * functions, then SYNC), against redis-server 7.0.15 and Spinel alike: the functions-only RDB holds the library and
 * none of the keys, the plain one the keys, and the master closes the connection after the RDB (no stream follows);
 * REPLCONF's refusals of bad values have Redis's texts. Spinel used to accept both options and ignore them: the
 * Tcl unit integration/redis-cli's "Dumping an RDB - functions only: yes" found every key in the dump.
 */
class RdbOnlyReplicaDiffTest {
    private static final String KEY = "rdb-only-test-key";
    private static final String LIB = "#!lua name=rdbonlylib\nredis.register_function('rdbonlyfunc', function() return 1 end)";

    @Test
    void functionsOnlyAndRdbOnlyAsRedis() throws Exception {
        try (RedisServerProcess redis = RedisServerProcess.start("--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0",
                "--rdbcompression", "no");
             SpinelServer spinel = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("repl-diskless-sync", "yes")
                     .with("repl-diskless-sync-delay", "0").with("rdbcompression", "no"))) {
            for (int port : new int[] {redis.port(), spinel.port()}) {
                String who = port == redis.port() ? "redis-server" : "spinel";
                try (RawClient c = new RawClient(port)) {
                    assertEquals("+OK\r\n", c.callString("SET", KEY, "v"));
                    c.callString("FUNCTION", "LOAD", LIB);
                }
                String functionsOnly = syncPayload(port, "functions");
                assertTrue(functionsOnly.contains("rdbonlyfunc"), who + ": the library is in the functions-only RDB");
                assertTrue(!functionsOnly.contains(KEY), who + ": no key in the functions-only RDB");
                String whole = syncPayload(port, null);
                assertTrue(whole.contains("rdbonlyfunc") && whole.contains(KEY), who + ": keys and library in the whole RDB");
            }
        }
    }

    @Test
    void replconfRefusalsAsRedis() throws Exception {
        try (RedisServerProcess redis = RedisServerProcess.start();
             SpinelServer spinel = SpinelServer.start(ServerConfig.defaults().with("port", "0"))) {
            List<String[]> calls = List.of(
                    new String[] {"REPLCONF", "rdb-only", "2"},
                    new String[] {"REPLCONF", "rdb-only", "x"},
                    new String[] {"REPLCONF", "rdb-only", "0"},
                    new String[] {"REPLCONF", "rdb-filter-only", "foo"},
                    new String[] {"REPLCONF", "rdb-filter-only", "\"unbalanced"},
                    new String[] {"REPLCONF", "rdb-filter-only", "functions foo"},
                    new String[] {"REPLCONF", "rdb-filter-only", ""},
                    new String[] {"SYNC"}); // a filtered replica without capa eof
            List<String> expected = replies(redis.port(), calls);
            assertEquals(expected, replies(spinel.port(), calls));
            assertEquals("[SYNC] -> -ERR Filtered replica requires EOF capability\r\n", expected.getLast());
        }
    }

    private static List<String> replies(int port, List<String[]> calls) throws IOException {
        List<String> out = new ArrayList<>();
        try (RawClient c = new RawClient(port)) {
            for (String[] call : calls) {
                out.add(Arrays.toString(call) + " -> " + c.callString(call));
            }
        }
        return out;
    }

    /** A redis-cli style SYNC: the payload between {@code $EOF:<mark>} and the mark; the master must close after it. */
    private static String syncPayload(int port, String filter) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            RawClient c = new RawClient(s);
            assertEquals("+OK\r\n", c.callString("REPLCONF", "capa", "eof"));
            assertEquals("+OK\r\n", c.callString("REPLCONF", "rdb-only", "1"));
            if (filter != null) {
                assertEquals("+OK\r\n", c.callString("REPLCONF", "rdb-filter-only", filter));
            }
            InputStream in = s.getInputStream();
            s.getOutputStream().write(RawClient.encode(List.of("SYNC".getBytes(StandardCharsets.US_ASCII))));
            String header = line(in);
            while (header.isEmpty()) { // newlines a master sends while it prepares the RDB
                header = line(in);
            }
            assertTrue(header.startsWith("$EOF:"), header);
            byte[] mark = header.substring(5).getBytes(StandardCharsets.US_ASCII);
            ByteArrayOutputStream payload = new ByteArrayOutputStream();
            while (!endsWith(payload, mark)) {
                int b = in.read();
                assertTrue(b >= 0, "closed before the end of the payload");
                payload.write(b);
            }
            assertEquals(-1, in.read(), "the master closes an rdb-only replica after its RDB");
            return payload.toString(StandardCharsets.ISO_8859_1);
        }
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        int b;
        while ((b = in.read()) != '\n') {
            assertTrue(b >= 0, "closed before the payload");
            if (b != '\r') {
                sb.append((char) b);
            }
        }
        return sb.toString();
    }

    private static boolean endsWith(ByteArrayOutputStream b, byte[] mark) {
        if (b.size() < mark.length) {
            return false;
        }
        byte[] all = b.toByteArray();
        return Arrays.equals(all, all.length - mark.length, all.length, mark, 0, mark.length);
    }
}
