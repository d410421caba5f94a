package dev.spinel.server.durability;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.scripting.FunctionLibraries;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Function libraries survive restarts: in dump.rdb, in the AOF (FUNCTION LOAD / DELETE / FLUSH / RESTORE
 * logged as received) and in its rewritten base, and both ways between Spinel and redis-server; FUNCTION
 * DUMP of one RESTOREs into the other.
 */
class FunctionsPersistenceTest {
    static final String LIB = "#!lua name=mylib\n redis.register_function('myfunc', function(keys, args) return 42 end)";
    static final String REDIS_LIB = "#!lua name=rlib\n redis.register_function{function_name='rf', callback=function() return 7 end, flags={'no-writes'}}";

    @TempDir
    Path dir;

    private SpinelServer start(boolean aof) {
        return SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", dir.toString())
                .with("appendonly", aof ? "yes" : "no"));
    }

    private static void load(SpinelServer s, String code) {
        var ks = s.engine().keyspace();
        ks.lockAll();
        try {
            s.scripting().functions().load(code.getBytes(StandardCharsets.UTF_8), false);
        } finally {
            ks.unlockAll();
        }
    }

    private static FunctionLibraries functions(SpinelServer s) {
        return s.scripting().functions();
    }

    @Test
    @Timeout(60)
    void rdbBothWaysWithRedis() throws Exception {
        try (SpinelServer s = start(false); RawClient c = new RawClient(s.port())) {
            load(s, LIB);
            c.call("SET", "k", "v");
            assertEquals("+OK\r\n", c.callString("SAVE"));
        }
        try (SpinelServer s = start(false)) {
            assertNotNull(functions(s).function("myfunc"));
            assertEquals(LIB, new String(functions(s).codes().getFirst(), StandardCharsets.UTF_8));
        }
        // redis-server loads our file (and can call the function), then saves its own with one more library.
        try (RedisServerProcess redis = RedisServerProcess.start("--dir", dir.toString(), "--dbfilename", "dump.rdb");
             RawClient c = new RawClient(redis.port())) {
            AofRewriteTest.awaitLoaded(c);
            assertEquals(":42\r\n", c.callString("FCALL", "myfunc", "0"));
            assertEquals("$4\r\nrlib\r\n", c.callString("FUNCTION", "LOAD", REDIS_LIB));
            assertEquals("+OK\r\n", c.callString("SAVE"));
        }
        try (SpinelServer s = start(false); RawClient c = new RawClient(s.port())) {
            assertNotNull(functions(s).function("myfunc"));
            FunctionLibraries.Function rf = functions(s).function("rf");
            assertEquals(FunctionLibraries.NO_WRITES, rf.flags());
            assertEquals("$1\r\nv\r\n", c.callString("GET", "k"));
        }
    }

    @Test
    @Timeout(60)
    void aofLogsTheFunctionCommandsAsReceived() throws Exception {
        String lib2 = "#!lua name=lib2\n redis.register_function('f2', function() return 2 end)";
        String lib3 = "#!lua name=lib3\n redis.register_function('f3', function() return 3 end)";
        byte[] payload;
        try (SpinelServer s = start(true); RawClient c = new RawClient(s.port())) {
            assertEquals("$4\r\nlib2\r\n", c.callString("FUNCTION", "LOAD", lib2));
            assertEquals("$4\r\nlib3\r\n", c.callString("FUNCTION", "LOAD", lib3));
            byte[] dump = c.call("FUNCTION", "DUMP");
            assertEquals("+OK\r\n", c.callString("FUNCTION", "FLUSH"));
            assertEquals("$5\r\nmylib\r\n", c.callString("FUNCTION", "LOAD", LIB));
            assertEquals("+OK\r\n", c.callString("FUNCTION", "DELETE", "mylib"));
            String text = new String(dump, StandardCharsets.ISO_8859_1);
            payload = text.substring(text.indexOf("\r\n") + 2, text.length() - 2).getBytes(StandardCharsets.ISO_8859_1);
            assertEquals("+OK\r\n", new String(c.call(List.of("FUNCTION".getBytes(), "RESTORE".getBytes(), payload)),
                    StandardCharsets.ISO_8859_1));
            assertEquals("$4\r\nlib2\r\n", c.callString("FUNCTION", "LOAD", "REPLACE", lib2.replace("return 2", "return 22")));
            assertEquals(":22\r\n", c.callString("FCALL", "f2", "0"));
            // A function's writes are logged as effects, like a script's.
            assertEquals("$4\r\nwlib\r\n", c.callString("FUNCTION", "LOAD",
                    "#!lua name=wlib\n redis.register_function('w', function(keys, args) return redis.call('set', keys[1], args[1]) end)"));
            assertEquals("+OK\r\n", c.callString("FCALL", "w", "1", "written", "v"));
            assertEquals("+OK\r\n", c.callString("FUNCTION", "DELETE", "wlib"));
        }
        try (SpinelServer s = start(true); RawClient c = new RawClient(s.port())) {
            assertEquals(":22\r\n", c.callString("FCALL", "f2", "0"));
            assertEquals(":3\r\n", c.callString("FCALL", "f3", "0"));
            assertEquals("-ERR Function not found\r\n", c.callString("FCALL", "myfunc", "0"));
            assertEquals("$1\r\nv\r\n", c.callString("GET", "written"));
            String info = c.callString("INFO", "memory");
            assertTrue(info.contains("\r\nnumber_of_functions:2\r\nnumber_of_libraries:2\r\n"), info);
        }
        // redis-server replays our log; its FUNCTION DUMP restores into Spinel and ours into it.
        byte[] redisDump;
        try (RedisServerProcess redis = RedisServerProcess.start("--dir", dir.toString(), "--appendonly", "yes");
             RawClient c = new RawClient(redis.port())) {
            AofRewriteTest.awaitLoaded(c);
            assertEquals(":22\r\n", c.callString("FCALL", "f2", "0"));
            assertEquals(":3\r\n", c.callString("FCALL", "f3", "0"));
            assertEquals("+OK\r\n", new String(c.call(List.of("FUNCTION".getBytes(), "RESTORE".getBytes(), payload,
                    "REPLACE".getBytes())), StandardCharsets.ISO_8859_1));
            assertEquals(":2\r\n", c.callString("FCALL", "f2", "0"));
            assertEquals("$1\r\nv\r\n", c.callString("GET", "written"));
            assertEquals("$5\r\nmylib\r\n", c.callString("FUNCTION", "LOAD", LIB));
            String text = new String(c.call("FUNCTION", "DUMP"), StandardCharsets.ISO_8859_1);
            redisDump = text.substring(text.indexOf("\r\n") + 2, text.length() - 2).getBytes(StandardCharsets.ISO_8859_1);
        }
        try (SpinelServer s = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", Files.createDirectories(dir.resolve("other")).toString()));
             RawClient c = new RawClient(s.port())) {
            assertEquals("+OK\r\n", new String(c.call(List.of("FUNCTION".getBytes(), "RESTORE".getBytes(), redisDump)),
                    StandardCharsets.ISO_8859_1));
            assertEquals(":42\r\n", c.callString("FCALL", "myfunc", "0"));
            assertEquals(":3\r\n", c.callString("FCALL", "f3", "0"));
        }
    }

    @Test
    @Timeout(60)
    void aofRewriteBaseCarriesTheLibraries() throws Exception {
        try (SpinelServer s = start(true); RawClient c = new RawClient(s.port())) {
            load(s, LIB);
            assertEquals("+Background append only file rewriting started\r\n", c.callString("BGREWRITEAOF"));
            long deadline = System.currentTimeMillis() + 20_000;
            while (true) {
                StringBuilder info = new StringBuilder();
                s.persistence().appendInfo(info);
                if (info.toString().contains("aof_rewrite_in_progress:0")) {
                    break;
                }
                assertTrue(System.currentTimeMillis() < deadline, "rewrite did not finish");
                Thread.sleep(10);
            }
            c.call("SET", "after", "1");
        }
        try (SpinelServer s = start(true); RawClient c = new RawClient(s.port())) {
            assertNotNull(functions(s).function("myfunc"));
            assertEquals("$1\r\n1\r\n", c.callString("GET", "after"));
        }
        Path copy = Files.createDirectories(dir.resolve("redis"));
        Path aofDir = Files.createDirectories(copy.resolve("appendonlydir"));
        try (var files = Files.list(dir.resolve("appendonlydir"))) {
            for (Path f : files.toList()) {
                Files.copy(f, aofDir.resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        try (RedisServerProcess redis = RedisServerProcess.start("--dir", copy.toString(), "--appendonly", "yes");
             RawClient c = new RawClient(redis.port())) {
            AofRewriteTest.awaitLoaded(c);
            assertEquals(":42\r\n", c.callString("FCALL", "myfunc", "0"));
        }
    }
}
