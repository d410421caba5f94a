package dev.spinel.server.diff;

import dev.spinel.protocol.RespReader;
import dev.spinel.protocol.RespValue;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Redis 7.0's unit/introspection checks on CONFIG: a hidden parameter (key-load-delay) is answered when named
 * and never for a pattern; replicaof and its old name slaveof both match a pattern; several patterns in one
 * CONFIG GET; replicaof cannot be set at run time; repl-backlog-size is set with others and shown by INFO.
 * The hidden use-exit-on-panic likewise. And key-load-delay really slows a load down.
 */
class HiddenAndAliasConfigDiffTest {
    /** DEBUG RELOAD writes dump.rdb: into a directory of this test's own (the two servers reload one after the other). */
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide("enable-debug-command", "yes", "dir", tempDir());

    private static String tempDir() {
        try {
            Path dir = Files.createTempDirectory("spinel-key-load-delay");
            dir.toFile().deleteOnExit();
            return dir.toString();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void hiddenAndAliasedParametersAnswerAsRedis() throws Exception {
        assertEquals(transcript(SERVERS.redis().port()), transcript(SERVERS.spinel().port()));
    }

    private static List<String> transcript(int port) throws Exception {
        List<String> out = new ArrayList<>();
        try (RawClient c = new RawClient(port)) {
            out.add(text(c.call("CONFIG", "GET", "key-load-delay")));
            out.add(String.valueOf(pairs(c.call("CONFIG", "GET", "*")).containsKey("key-load-delay")));
            out.add(String.valueOf(pairs(c.call("CONFIG", "GET", "key-load-*")).containsKey("key-load-delay")));
            out.add(text(c.call("CONFIG", "SET", "key-load-delay", "-50")));
            out.add(text(c.call("CONFIG", "GET", "key-load-delay")));
            out.add(text(c.call("CONFIG", "SET", "key-load-delay", "0")));
            // corrupt-dump.tcl starts its servers with use-exit-on-panic (hidden) and crash-memcheck-enabled
            out.add(text(c.call("CONFIG", "GET", "use-exit-on-panic")));
            out.add(String.valueOf(pairs(c.call("CONFIG", "GET", "*")).containsKey("use-exit-on-panic")));
            out.add(text(c.call("CONFIG", "SET", "use-exit-on-panic", "yes", "crash-memcheck-enabled", "no")));
            out.add(text(c.call("CONFIG", "GET", "use-exit-on-panic")));
            out.add(text(c.call("CONFIG", "SET", "use-exit-on-panic", "no", "crash-memcheck-enabled", "yes")));
            Map<String, String> several = pairs(c.call("CONFIG", "GET", "maxmemory", "maxmemory*", "*of", "maxmemory-p*"));
            several.remove("bind");
            out.add(several.toString());
            out.add(text(c.call("CONFIG", "GET", "slaveof")));
            out.add(text(c.call("CONFIG", "SET", "slaveof", "no one")));
            out.add(text(c.call("CONFIG", "SET", "replicaof", "")));
            // unit/introspection's "CONFIG SET with multiple args" sets the backlog size; INFO shows it
            out.add(text(c.call("CONFIG", "SET", "repl-backlog-size", "0")));
            out.add(text(c.call("CONFIG", "SET", "maxmemory", "10000001", "repl-backlog-size", "10000002", "save", "3000 5")));
            out.add(text(c.call("CONFIG", "GET", "repl-backlog-size")));
            String info = text(c.call("INFO", "replication"));
            out.add(info.substring(info.indexOf("repl_backlog_size:"), info.indexOf("repl_backlog_first_byte_offset")));
            out.add(text(c.call("CONFIG", "SET", "maxmemory", "0", "repl-backlog-size", "1mb", "save", "")));
        }
        return out;
    }

    @Test
    void keyLoadDelaySlowsDebugReload() throws Exception {
        for (int port : new int[]{SERVERS.redis().port(), SERVERS.spinel().port()}) {
            try (RawClient c = new RawClient(port)) {
                c.call("FLUSHALL");
                c.call("DEBUG", "POPULATE", "200", "slow");
                c.call("CONFIG", "SET", "key-load-delay", "2000"); // 2 ms per key: at least 0.4 s for 200 keys
                long start = System.nanoTime();
                assertEquals("+OK\r\n", text(c.call("DEBUG", "RELOAD")));
                long millis = (System.nanoTime() - start) / 1_000_000;
                c.call("CONFIG", "SET", "key-load-delay", "0");
                assertTrue(millis >= 380, "DEBUG RELOAD of 200 keys at 2 ms each took " + millis + " ms on port " + port);
                assertEquals(":200\r\n", text(c.call("DBSIZE")));
                c.call("FLUSHALL");
                c.call("SAVE"); // an empty dump.rdb left behind
            }
        }
    }

    private static Map<String, String> pairs(byte[] reply) throws Exception {
        List<RespValue> items = ((RespValue.Array) new RespReader(reply).read()).items();
        Map<String, String> m = new TreeMap<>();
        for (int i = 0; i < items.size(); i += 2) {
            m.put(str(items.get(i)), str(items.get(i + 1)));
        }
        return m;
    }

    private static String str(RespValue v) {
        return new String(((RespValue.BulkString) v).value(), StandardCharsets.UTF_8);
    }

    private static String text(byte[] reply) {
        return new String(reply, StandardCharsets.ISO_8859_1);
    }
}
