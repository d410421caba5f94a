package dev.spinel.server.config;

import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Command-line options are appended to the config text quoted as Redis's {@code sdscatrepr} quotes bytes, and
 * read back by the config file's {@code sdssplitargs} rules: the error line of a bad option matches
 * redis-server's byte for byte (non-ASCII as {@code \xhh}), and every value reads back as given.
 */
class OptionQuotingDiffTest {
    @TempDir
    Path dir;

    @Test
    void badOptionIsQuotedAsRedisQuotesIt() throws Exception {
        for (String value : List.of("é\tx", "a\u007fb\u0001", "q\"b\\s\nr\r\u0007\b", "日本")) {
            String[] args = {"--maxmemory-policy", value};
            ConfigException e = assertThrows(ConfigException.class, () -> ServerConfig.fromArgs(args));
            assertEquals(redisFatalError(args), e.getMessage().strip(), value);
        }
    }

    /** Redis 7.0.15's command-line grammar (introspection.tcl "redis-server command line arguments"): the error cases. */
    @Test
    void commandLineErrorsAsRedis() throws Exception {
        for (String[] args : List.of(new String[]{"--port"}, new String[]{"--port", "6380", "--loglevel"},
                new String[]{"--port", "6379", "6380"}, new String[]{"--port", "--loglevel", "verbose"},
                new String[]{"--port", "--bla", "--loglevel", "verbose"},
                new String[]{"--logfile", "--my--log--file", "--loglevel", "--bla"},
                new String[]{"--shutdown-on-sigint"}, new String[]{"--shutdown-on-sigint", "now force", "--shutdown-on-sigterm"})) {
            ConfigException e = assertThrows(ConfigException.class, () -> ServerConfig.fromArgs(args), String.join(" ", args));
            assertEquals(redisFatalError(args), e.getMessage().strip(), String.join(" ", args));
        }
    }

    /** ... and what it accepts: a value starting with "--" after an option without one, name and value in one argument. */
    @Test
    void commandLineValuesAsRedis() throws Exception {
        ServerConfig c = ServerConfig.fromArgs(new String[]{"--proc-title-template", "--my--title--template", "--loglevel", "verbose"});
        assertEquals("--my--title--template", c.param("proc-title-template").get());
        assertEquals("verbose", c.param("loglevel").get());
        c = ServerConfig.fromArgs(new String[]{"--maxmemory 700mb", "--maxmemory-policy volatile-lru", "--save", "--loglevel", "debug"});
        assertEquals("734003200", c.param("maxmemory").get());
        assertEquals("volatile-lru", c.param("maxmemory-policy").get());
        assertEquals("", c.param("save").get());
        assertEquals("debug", c.param("loglevel").get());
        c = ServerConfig.fromArgs(new String[]{"--loglevel", "verbose", "--save"});
        assertEquals("", c.param("save").get());
        // Redis's MULTI_ARG configs take several words, or one argument with spaces
        c = ServerConfig.fromArgs(new String[]{"--shutdown-on-sigint", "nosave", "force", "now", "--shutdown-on-sigterm", "nosave force",
            "--oom-score-adj-values", "0", "200", "800"});
        assertEquals("nosave now force", c.param("shutdown-on-sigint").get());
        assertEquals("nosave force", c.param("shutdown-on-sigterm").get());
        assertEquals("0 200 800", c.param("oom-score-adj-values").get());
    }

    @Test
    void valuesReadBackAsGiven() throws Exception {
        for (String value : List.of("é.rdb", "a b\"c\\d'.rdb", "日本.rdb", "x\u007f.rdb")) {
            ServerConfig c = ServerConfig.fromArgs(new String[]{"--dbfilename", value});
            assertEquals(value, c.dbfilename.value());
        }
    }

    @Test
    void hexEscapesInTheFileAreUtf8Bytes() throws Exception {
        Path f = dir.resolve("spinel.conf");
        Files.writeString(f, "dbfilename \"\\xc3\\xa9-\\x41.rdb\"\nrequirepass \"p\\xe6\\x97\\xa5\"\n", StandardCharsets.UTF_8);
        ServerConfig c = ServerConfig.fromArgs(new String[]{f.toString()});
        assertEquals("é-A.rdb", c.dbfilename.value());
        assertEquals("p日", c.requirepass.value());
    }

    /** redis-server's output for options it refuses at start-up (it exits at once, before listening). */
    static String redisFatalError(String[] options) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(RedisServerProcess.executable());
        cmd.addAll(List.of(options));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(10, TimeUnit.SECONDS), "redis-server exits on a bad option");
        return new String(out, StandardCharsets.UTF_8).strip();
    }
}
