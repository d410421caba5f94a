package dev.spinel.server.config;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * {@code rename-command} as redis-server 7.0.15 has it: clients call a renamed command by its new name only and a
 * command renamed to "" not at all, from scripts too; COMMAND INFO, DOCS, GETKEYS and LATENCY HISTOGRAM take the
 * new name; COMMAND LIST, replies, ACL rules and INFO commandstats keep the command's own name; the line's errors
 * at start-up in Redis's words. Every reply compared with redis-server's, byte for byte.
 */
class RenameCommandDiffTest {
    private static final String[] RENAMES = {"--rename-command", "set", "myset", "--rename-command", "get", "",
        "--rename-command", "config", "CFG", "--rename-command", "cfg", "settings", "--rename-command", "latency", "lat"};

    @TempDir
    Path dir;

    @Test
    void renamedCommandsAnswerAsRedis() throws Exception {
        List<String> redis;
        try (RedisServerProcess r = RedisServerProcess.start(RENAMES)) {
            redis = transcript(r.port());
        }
        List<String> args = new ArrayList<>(List.of("--port", "0", "--save", ""));
        args.addAll(List.of(RENAMES));
        SpinelServer spinel = SpinelServer.start(ServerConfig.fromArgs(args.toArray(String[]::new)));
        try {
            assertEquals(redis, transcript(spinel.port()));
        } finally {
            spinel.close();
        }
    }

    private static List<String> transcript(int port) throws Exception {
        List<String> out = new ArrayList<>();
        try (RawClient c = new RawClient(port)) {
            for (String[] command : new String[][]{
                {"COMMAND", "COUNT"}, {"SET", "k", "v"}, {"MYSET", "k", "v"}, {"myset", "k2", "v2"}, {"GET", "k"},
                {"MGET", "k", "k2"}, {"CONFIG", "GET", "maxmemory"}, {"CFG", "GET", "maxmemory"},
                {"SETTINGS", "GET", "maxmemory"}, {"settings", "get", "maxmemory-policy"},
                {"COMMAND", "INFO", "myset", "set", "get", "settings|get", "config|get", "mget"},
                {"COMMAND", "DOCS", "set"}, {"COMMAND", "GETKEYS", "myset", "a", "b"}, {"COMMAND", "GETKEYS", "set", "a", "b"},
                {"MYSET", "only-one-arg"}, {"EVAL", "return redis.call('set', 'a', 'b')", "0"},
                {"EVAL", "return redis.call('myset', 'a', 'b')", "0"}, {"EVAL", "return redis.pcall('get', 'a')", "0"},
                {"MULTI"}, {"MYSET", "t", "1"}, {"SET", "t", "2"}, {"EXEC"}, {"MULTI"}, {"MYSET", "t", "3"}, {"EXEC"},
                {"ACL", "SETUSER", "u", "+myset"}, {"ACL", "SETUSER", "u", "+set", "+get", "+config|get"},
                {"ACL", "DRYRUN", "u", "set", "a", "b"}, {"ACL", "DRYRUN", "u", "myset", "a", "b"}, {"LAT", "HISTOGRAM", "set"}, {"LATENCY", "HISTOGRAM"},
            }) {
                out.add(String.join(" ", command) + " -> " + new String(c.call(command), StandardCharsets.UTF_8));
            }
            // the lists' order is each server's own: compare what they hold
            out.add("COMMAND LIST -> " + names(c.call("COMMAND", "LIST"), "set", "myset", "get", "config", "cfg", "settings", "mget"));
            out.add("COMMAND DOCS myset -> " + new String(c.call("COMMAND", "DOCS", "myset"), StandardCharsets.UTF_8).contains("summary"));
            String stats = new String(c.call("INFO", "commandstats"), StandardCharsets.UTF_8);
            out.add(stats.lines().filter(l -> l.startsWith("cmdstat_set:") || l.startsWith("cmdstat_config|get:"))
                    .map(l -> l.substring(0, l.indexOf(",usec="))).sorted().toList().toString());
            String histogram = new String(c.call("LAT", "HISTOGRAM", "myset", "settings|get"), StandardCharsets.UTF_8);
            out.add("LAT HISTOGRAM -> " + histogram.contains("$3\r\nset\r\n") + " " + histogram.contains("$10\r\nconfig|get\r\n"));
        }
        return out;
    }

    /** Which of {@code wanted} the array reply holds, in {@code wanted}'s order. */
    private static List<String> names(byte[] reply, String... wanted) {
        String text = new String(reply, StandardCharsets.UTF_8);
        List<String> held = new ArrayList<>();
        for (String w : wanted) {
            if (text.contains("\r\n$" + w.length() + "\r\n" + w + "\r\n")) {
                held.add(w);
            }
        }
        return held;
    }

    @Test
    void badLinesFailTheStartAsRedis() throws Exception {
        for (String[] args : List.of(new String[]{"--rename-command", "nosuch", "x"},
                new String[]{"--rename-command", "set", "get"}, new String[]{"--rename-command", "set", "GET"},
                new String[]{"--rename-command", "set"}, new String[]{"--rename-command", "set", "a", "b"},
                new String[]{"--rename-command", "get", "", "--rename-command", "get", "x"},
                new String[]{"--rename-command", "set", "x", "--rename-command", "set", "y"})) {
            ConfigException e = assertThrows(ConfigException.class, () -> ServerConfig.fromArgs(args), String.join(" ", args));
            assertEquals(OptionQuotingDiffTest.redisFatalError(args), e.getMessage().strip(), String.join(" ", args));
        }
    }

    @Test
    void aConfigFilesLinesChainAsRedis() throws Exception {
        Path f = dir.resolve("spinel.conf");
        Files.writeString(f, "rename-command flushall \"\"\nrename-command flushdb wipe\nrename-command WIPE flushall\n"
                + "rename-command keys flushdb\n");
        ServerConfig c = ServerConfig.fromArgs(new String[]{f.toString()});
        assertEquals(List.of(List.of("flushall", ""), List.of("flushdb", "wipe"), List.of("WIPE", "flushall"),
                List.of("keys", "flushdb")), c.commandRenames());
        // a later load of the same configuration continues from the names the first one left
        for (String line : List.of("rename-command \"\" x", "rename-command wipe x", "rename-command keys x")) {
            ConfigException later = assertThrows(ConfigException.class, () -> c.load(line), line);
            assertEquals("No such command in rename-command", later.getMessage().strip().lines().reduce((a, b) -> b).orElse(""), line);
        }
        c.load("rename-command flushdb keys");
        Files.writeString(f, "rename-command flushall \"\"\nrename-command flushdb flushall\nrename-command keys flushall\n");
        ConfigException e = assertThrows(ConfigException.class, () -> ServerConfig.fromArgs(new String[]{f.toString()}));
        assertEquals("*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at line 3\n"
                + ">>> 'rename-command keys flushall'\nTarget command name already exists", e.getMessage().strip());
    }
}
