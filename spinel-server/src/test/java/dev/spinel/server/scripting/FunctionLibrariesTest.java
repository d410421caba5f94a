package dev.spinel.server.scripting;

import dev.spinel.persistence.FunctionsPayload;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * FUNCTION LOAD's parsing, sandbox and registration against a real {@code redis-server}: each library
 * is loaded by both, and the reply (the library's name or the error text) must be the same.
 */
class FunctionLibrariesTest {
    private static Process redis;
    private static int port;

    @BeforeAll
    static void start() throws Exception {
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        redis = new ProcessBuilder("redis-server", "--port", Integer.toString(port), "--save", "").redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        long deadline = System.currentTimeMillis() + 20_000;
        while (true) {
            try {
                if ("PONG".equals(redis("PING"))) {
                    return;
                }
            } catch (IOException e) {
                if (System.currentTimeMillis() > deadline) {
                    throw e;
                }
                Thread.sleep(50);
            }
        }
    }

    @AfterAll
    static void stop() throws InterruptedException {
        redis.destroy();
        redis.waitFor(10, TimeUnit.SECONDS);
    }

    static final List<String> LIBRARIES = List.of(
            "#!lua name=l1\n redis.register_function('f', function(keys, args) return 1 end)",
            "#!lua name=l1\n redis.register_function()",
            "#!lua name=l1\n return string.len('x')",
            "#!lua name=l1\n redis.call('ping')",
            "#!lua name=l1\n redis.pcall('ping')",
            "#!lua name=l1\n error('boom')",
            "#!lua name=l1\n redis.register_function{function_name='f', callback=function() end, flags={'bad'}}",
            "#!lua name=l1\n redis.register_function{function_name='f', callback=function() end, flags={1}}",
            "#!lua name=l1\n redis.register_function{function_name='f', callback=function() end, flags={'no-writes', 'ALLOW-OOM', 'allow-stale', 'no-cluster', 'allow-cross-slot-keys'}}",
            "#!lua name=l1\n redis.register_function('f-1', function() end)",
            "#!lua name=l1\n redis.register_function('', function() end)",
            "#!lua name=l1\n redis.register_function('f', function() end) redis.register_function('f', function() end)",
            "#!lua name=l1\n x = 1",
            "#!lua\n--",
            "#!lua name=a name=b\n--",
            "#!lua foo=a\n--",
            "#!js name=a\n--",
            "#!lua name=a-b\n--",
            "#!lua name=\n--",
            "#!lua name=l1",
            "lua name=l1\n--",
            "#!lua name=l1\n return 1",
            "#!LUA NAME=l1\n redis.register_function('f', function() return 1 end)",
            "#!lua  name=\"l1\" \n redis.register_function('g', function() return 1 end)",
            "#!lua name=\"l1\"x\n--",
            "#!lua name=\"l1\n--",
            "#!lua name=l1\n redis.register_function('f', 1)",
            "#!lua name=l1\n redis.register_function(1, function() end)",
            "#!lua name=l1\n redis.register_function({}, function() end)",
            "#!lua name=l1\n redis.register_function({})",
            "#!lua name=l1\n redis.register_function(1)",
            "#!lua name=l1\n redis.register_function{foo=1}",
            "#!lua name=l1\n redis.register_function{function_name=1}",
            "#!lua name=l1\n redis.register_function{callback=print}",
            "#!lua name=l1\n redis.register_function{callback=1}",
            "#!lua name=l1\n redis.register_function{flags=1}",
            "#!lua name=l1\n redis.register_function{function_name={}}",
            "#!lua name=l1\n redis.register_function{function_name='f', description={}}",
            "#!lua name=l1\n redis.register_function{function_name='f', description='d', callback=function() end}",
            "#!lua name=l1\n redis.register_function{[1]=1}",
            "#!lua name=l1\n redis.log(redis.LOG_DEBUG, 'x') redis.register_function('h', function() return redis.REDIS_VERSION end)",
            "#!lua name=l1\n local t = redis.setresp",
            "#!lua name=l1\n redis.register_function(nil, nil, nil)",
            "#!lua name=l1\n redis.register_function('f', function() end) redis.x = 1",
            "#!lua name=l1\n a b",
            "#!lua name=l1\n local x =",
            "#!lua name=l1\n\n\n error('x')",
            "#!lua name=l1\n local f = function() return KEYS end redis.register_function('f', f)");

    @Test
    void loadRepliesAsRedis() throws IOException {
        FunctionLibraries ours = FunctionLibraries.standalone();
        for (String lib : LIBRARIES) {
            for (boolean replace : new boolean[] {true, false}) {
                byte[] code = lib.getBytes(StandardCharsets.UTF_8);
                String expected = replace ? redis("FUNCTION", "LOAD", "REPLACE", lib) : redis("FUNCTION", "LOAD", lib);
                String actual;
                try {
                    actual = ours.load(code, replace);
                } catch (FunctionError e) {
                    actual = "ERR " + e.getMessage();
                }
                String compiling = "ERR Error compiling function: user_function:";
                if (expected.startsWith(compiling)) {
                    // LuaJ words syntax errors unlike Lua 5.1 (as for EVAL): the same up to the line number.
                    int end = expected.indexOf(": ", compiling.length()) + 2;
                    assertEquals(expected.substring(0, end), actual.substring(0, Math.min(end, actual.length())), lib);
                    continue;
                }
                assertEquals(expected, actual, (replace ? "REPLACE " : "") + lib);
            }
        }
    }

    @Test
    void functionsAcrossLibrariesReplaceAndDelete() throws IOException {
        FunctionLibraries ours = FunctionLibraries.standalone();
        redis("FUNCTION", "FLUSH");
        String[][] steps = {
                {"", "#!lua name=a\n redis.register_function('f', function() return 1 end)"},
                {"", "#!lua name=b\n redis.register_function('f', function() return 1 end)"},
                {"", "#!lua name=b\n redis.register_function('g', function() return 1 end)"},
                {"REPLACE", "#!lua name=b\n redis.register_function('f', function() return 1 end)"},
                {"REPLACE", "#!lua name=a\n redis.register_function('g', function() return 1 end)"},
                {"REPLACE", "#!lua name=a\n redis.register_function('f2', function() return 1 end) redis.register_function('f', function() end)"},
        };
        for (String[] step : steps) {
            boolean replace = !step[0].isEmpty();
            String expected = replace ? redis("FUNCTION", "LOAD", "REPLACE", step[1]) : redis("FUNCTION", "LOAD", step[1]);
            String actual;
            try {
                actual = ours.load(step[1].getBytes(StandardCharsets.UTF_8), replace);
            } catch (FunctionError e) {
                actual = "ERR " + e.getMessage();
            }
            assertEquals(expected, actual, step[1]);
        }
        // a: f2 and f (its f replaced its own f), b: g (the failed loads changed nothing).
        assertEquals("a", ours.function("f2").library().name());
        assertEquals("a", ours.function("f").library().name());
        assertEquals("b", ours.function("g").library().name());
        assertEquals(2, ours.libraries().size());
        assertTrue(ours.delete("a"));
        assertFalse(ours.delete("a"));
        assertNull(ours.function("f2"));
        assertNotNull(ours.function("g"));
        assertEquals(1, ours.codes().size());
        ours.flush();
        assertEquals(0, ours.functionCount());
    }

    @Test
    void restoreRepliesAsRedis() throws IOException {
        String a = "#!lua name=a\n redis.register_function('fa', function() return 1 end)";
        String a2 = "#!lua name=a\n redis.register_function('fa2', function() return 1 end)";
        String b = "#!lua name=b\n redis.register_function('fb', function() return 1 end)";
        String bWithFa = "#!lua name=b\n redis.register_function('fa', function() return 1 end)";
        String empty = "#!lua name=e\n local x = 1";
        String bad = "#!lua name=bad\n x = 1";
        List<List<String>> payloads = List.of(List.of(a2), List.of(b), List.of(bWithFa), List.of(a, a), List.of(a, bWithFa),
                List.of(empty), List.of(bad), List.of(b, a2), List.of(), List.of("nothing"));
        for (List<String> payload : payloads) {
            for (FunctionLibraries.RestorePolicy policy : FunctionLibraries.RestorePolicy.values()) {
                FunctionLibraries ours = FunctionLibraries.standalone();
                ours.load(a.getBytes(StandardCharsets.UTF_8), false);
                redis("FUNCTION", "FLUSH");
                redis("FUNCTION", "LOAD", a);
                List<byte[]> codes = payload.stream().map(p -> p.getBytes(StandardCharsets.UTF_8)).toList();
                String expected = redisBytes("FUNCTION", "RESTORE", FunctionsPayload.create(codes), policy.name());
                String actual;
                try {
                    ours.restore(codes, policy);
                    actual = "OK";
                } catch (FunctionError e) {
                    actual = "ERR " + e.getMessage();
                }
                assertEquals(expected, actual, policy + " " + payload);
                // Same libraries afterwards.
                byte[] dump = redis("FUNCTION", "DUMP").getBytes(StandardCharsets.ISO_8859_1);
                List<String> theirs = FunctionsPayload.read(dump).stream()
                        .map(c -> new String(c, StandardCharsets.UTF_8)).sorted().toList();
                List<String> mine = ours.codes().stream().map(c -> new String(c, StandardCharsets.UTF_8)).sorted().toList();
                assertEquals(theirs, mine, policy + " " + payload);
            }
        }
    }

    @Test
    void flagsAndDescriptionAreKept() {
        FunctionLibraries ours = FunctionLibraries.standalone();
        ours.load(("#!lua name=l\n redis.register_function{function_name='f', description='d', callback=function() end, "
                + "flags={'no-writes', 'allow-cross-slot-keys'}}").getBytes(StandardCharsets.UTF_8), false);
        FunctionLibraries.Function f = ours.function("f");
        assertEquals("d", f.description());
        assertEquals(FunctionLibraries.NO_WRITES | FunctionLibraries.ALLOW_CROSS_SLOT_KEYS, f.flags());
        assertEquals("l", f.library().name());
    }

    /** One command to the reference server; a simple, error or bulk reply as text. */
    static String redis(String... args) throws IOException {
        return redisBytes((Object[]) args);
    }

    static String redisBytes(Object... args) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            ByteArrayOutputStream req = new ByteArrayOutputStream();
            req.write(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            for (Object a : args) {
                byte[] b = a instanceof byte[] bytes ? bytes : a.toString().getBytes(StandardCharsets.UTF_8);
                req.write(("$" + b.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
                req.write(b);
                req.write("\r\n".getBytes(StandardCharsets.US_ASCII));
            }
            s.getOutputStream().write(req.toByteArray());
            InputStream in = s.getInputStream();
            int type = in.read();
            String line = line(in);
            if (type == '$') {
                byte[] b = in.readNBytes(Integer.parseInt(line));
                return new String(b, StandardCharsets.ISO_8859_1);
            }
            return line;
        }
    }

    private static String line(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != '\r') {
            b.write(c);
        }
        in.read();
        return b.toString(StandardCharsets.UTF_8);
    }
}
