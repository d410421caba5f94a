package dev.spinel.server.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The server's configuration: every parameter with its Redis name, default, and whether CONFIG SET
 * may change it. Built from a redis.conf-syntax file and/or redis-server style arguments
 * ({@code --port 7000}); in code, {@code ServerConfig.defaults().set("port", "0")}.
 *
 * <p>Thread-safety: parameters are registered at construction; values are volatile, so readers on
 * any thread see a CONFIG SET at once.
 */
public final class ServerConfig {
    private final Map<String, Param> byName = new LinkedHashMap<>();
    private final Map<String, Param> byAlias = new LinkedHashMap<>();
    private Path configFile;

    public final Params.Int port = add(new Params.Int("port", true, 6379, 0, 65535, null));
    public final Params.Text bind = add(new Params.Text("bind", true, "127.0.0.1", null, null));
    public final Params.Bool protectedMode = add(new Params.Bool("protected-mode", true, true, null));
    public final Params.Text requirepass = add(new Params.Text("requirepass", true, "", null, null));
    public final Params.Int databases = add(new Params.Int("databases", false, 16, 1, Integer.MAX_VALUE, null));
    public final Params.Int maxclients = add(new Params.Int("maxclients", true, 10000, 1, Integer.MAX_VALUE, null));
    public final Params.Int timeout = add(new Params.Int("timeout", true, 0, 0, Integer.MAX_VALUE, null));
    public final Params.Int tcpKeepalive = add(new Params.Int("tcp-keepalive", true, 300, 0, Integer.MAX_VALUE, null));
    public final Params.Int tcpBacklog = add(new Params.Int("tcp-backlog", false, 511, 0, Integer.MAX_VALUE, null));
    public final Params.Memory protoMaxBulkLen = add(new Params.Memory("proto-max-bulk-len", true, 512L * 1024 * 1024, Long.MAX_VALUE, null));
    public final Params.Memory clientQueryBufferLimit = add(new Params.Memory("client-query-buffer-limit", true, 1024L * 1024 * 1024, Long.MAX_VALUE, null));
    public final Params.Int hz = add(new Params.Int("hz", true, 10, 0, Integer.MAX_VALUE, null));
    public final Params.Enum loglevel = add(new Params.Enum("loglevel", true, "notice",
            List.of("debug", "verbose", "notice", "warning", "nothing"), null));
    public final Params.Text logfile = add(new Params.Text("logfile", false, "", null, null));
    public final Params.Text dir = add(new Params.Text("dir", true, ".", null, null));
    public final Params.Text dbfilename = add(new Params.Text("dbfilename", true, "dump.rdb", null, null));
    public final Params.Text save = add(new Params.Text("save", true, "", dev.spinel.server.persistence.SavePoints::validate, null));
    public final Params.Bool appendonly = add(new Params.Bool("appendonly", true, false, null));
    public final Params.Memory maxmemory = add(new Params.Memory("maxmemory", true, 0, Long.MAX_VALUE, null));
    public final Params.Enum maxmemoryPolicy = add(new Params.Enum("maxmemory-policy", true, "noeviction",
            List.of("volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl", "allkeys-lru", "allkeys-lfu",
                    "allkeys-random", "noeviction"), null));
    public final Params.Int slowlogLogSlowerThan = add(new Params.Int("slowlog-log-slower-than", true, 10000, -1, Long.MAX_VALUE, null));
    public final Params.Int slowlogMaxLen = add(new Params.Int("slowlog-max-len", true, 128, 0, Long.MAX_VALUE, null));
    public final Params.Int latencyMonitorThreshold = add(new Params.Int("latency-monitor-threshold", true, 0, 0, Long.MAX_VALUE, null));
    // ---- persistence (owned by the persistence module; see dev.spinel.server.persistence) ----
    public final Params.Bool rdbcompression = add(new Params.Bool("rdbcompression", true, true, null));
    public final Params.Bool rdbchecksum = add(new Params.Bool("rdbchecksum", false, true, null));
    public final Params.Enum appendfsync = add(new Params.Enum("appendfsync", true, "everysec", List.of("always", "everysec", "no"), null));
    public final Params.Text appenddirname = add(new Params.Text("appenddirname", false, "appendonlydir", null, null));
    public final Params.Text appendfilename = add(new Params.Text("appendfilename", false, "appendonly.aof", null, null));
    public final Params.Bool aofLoadTruncated = add(new Params.Bool("aof-load-truncated", true, true, null));
    public final Params.Int autoAofRewritePercentage = add(new Params.Int("auto-aof-rewrite-percentage", true, 100, 0, Integer.MAX_VALUE, null));
    public final Params.Memory autoAofRewriteMinSize = add(new Params.Memory("auto-aof-rewrite-min-size", true, 64L * 1024 * 1024, Long.MAX_VALUE, null));
    public final Params.Bool stopWritesOnBgsaveError = add(new Params.Bool("stop-writes-on-bgsave-error", true, true, null));
    // ---- end persistence ----
    /** Spinel's own: Netty event loops; 0 means one per core. */
    public final Params.Int eventLoopThreads = add(new Params.Int("event-loop-threads", false, 0, 0, 1024, null));

    public static ServerConfig defaults() {
        return new ServerConfig();
    }

    /** Registers a parameter (used by subsystems that own their parameters). */
    public <P extends Param> P add(P p) {
        byName.put(p.name(), p);
        for (String a : p.aliases()) {
            byAlias.put(a, p);
        }
        return p;
    }

    /** The parameter with this name or alias (any case), or {@code null}. */
    public Param param(String name) {
        String n = name.toLowerCase(Locale.ROOT);
        Param p = byName.get(n);
        return p != null ? p : byAlias.get(n);
    }

    public Collection<Param> params() {
        return byName.values();
    }

    /** Sets a parameter by name, as a config-file directive or CONFIG SET would. */
    public ServerConfig set(String name, String value) throws ConfigException {
        Param p = param(name);
        if (p == null) {
            throw new ConfigException("Bad directive or wrong number of arguments");
        }
        p.set(value);
        return this;
    }

    /** Unchecked variant of {@link #set} for code that builds a config (tests, embedding). */
    public ServerConfig with(String name, String value) {
        try {
            return set(name, value);
        } catch (ConfigException e) {
            throw new IllegalArgumentException(name + ": " + e.getMessage(), e);
        }
    }

    public Path configFile() {
        return configFile;
    }

    /**
     * Builds a configuration the way {@code redis-server} reads its command line: an optional config
     * file first, then {@code --name value...} options applied after it (later wins).
     */
    public static ServerConfig fromArgs(String[] args) throws ConfigException, IOException {
        ServerConfig c = new ServerConfig();
        int i = 0;
        StringBuilder text = new StringBuilder();
        if (args.length > 0 && !args[0].startsWith("--")) {
            c.configFile = Path.of(args[0]).toAbsolutePath();
            text.append(Files.readString(c.configFile, StandardCharsets.UTF_8)).append('\n');
            i = 1;
        }
        StringBuilder options = new StringBuilder();
        for (; i < args.length; i++) {
            String a = args[i];
            if (a.startsWith("--")) {
                if (!options.isEmpty()) {
                    options.append('\n');
                }
                options.append(a.substring(2));
            } else {
                options.append(' ').append(Quoting.quoteIfNeeded(a));
            }
        }
        c.load(text.append(options).toString());
        return c;
    }

    /** Applies redis.conf-syntax text; the first bad line stops loading with its number and reason. */
    public void load(String text) throws ConfigException {
        String[] lines = text.split("\n", -1);
        for (int n = 0; n < lines.length; n++) {
            String line = lines[n].strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            List<String> words = Quoting.split(line);
            String reason;
            if (words == null) {
                reason = "Unbalanced quotes in configuration line";
            } else {
                reason = apply(words);
            }
            if (reason != null) {
                throw new ConfigException("\n*** FATAL CONFIG FILE ERROR ***\nReading the configuration file, at line "
                        + (n + 1) + "\n>>> '" + line + "'\n" + reason);
            }
        }
    }

    private String apply(List<String> words) {
        Param p = param(words.getFirst());
        if (p == null) {
            return "Bad directive or wrong number of arguments";
        }
        List<String> values = new ArrayList<>(words.subList(1, words.size()));
        if (values.isEmpty()) {
            return "wrong number of arguments";
        }
        try {
            // Multi-word parameters (save, bind, ...) take their words joined; the rest take one.
            if (values.size() > 1 && !(p instanceof Params.Text)) {
                return "wrong number of arguments";
            }
            p.set(String.join(" ", values));
            return null;
        } catch (ConfigException e) {
            return e.getMessage();
        }
    }
}
