package dev.spinel.server.config;

import dev.spinel.protocol.CommandMetadata;
import dev.spinel.server.acl.Acl;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Reading a {@link ServerConfig} as {@code redis-server} reads its configuration: the command line (a config
 * file or {@code -} for standard input, then {@code --name value...} options), redis.conf-syntax text with
 * {@code include} and {@code user} directives, and Redis 7.0's texts for a bad line.
 *
 * <p>Thread-safety: none; used at start-up (and by tests) on one thread, before the configuration is shared.
 */
final class ConfigLoader {
    private final ServerConfig config;
    /** The names clients would call commands by after the {@code rename-command} lines read so far (made on the first). */
    private Map<String, String> commandNames;

    ConfigLoader(ServerConfig config) {
        this.config = config;
    }

    /** {@link ServerConfig#fromArgs(String[], InputStream)}. */
    static ServerConfig fromArgs(String[] args, InputStream stdin) throws ConfigException, IOException {
        ServerConfig c = ServerConfig.defaults();
        int i = 0;
        String fileText = "";
        if (args.length > 0 && args[0].equals("-")) {
            // "spinel-server -" reads the configuration from standard input (as redis-server -).
            fileText = new String(stdin.readAllBytes(), StandardCharsets.UTF_8);
            i = 1;
        } else if (args.length > 0 && !args[0].startsWith("--")) {
            Path file = Path.of(args[0]).toAbsolutePath();
            c.configFile(file);
            try {
                fileText = Files.readString(file, StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new ConfigException("Fatal error, can't open config file '" + args[0] + "': " + reason(e));
            }
            i = 1;
        }
        c.load(fileText + "\n" + commandLineOptions(args, i));
        return c;
    }

    /**
     * The options after the config file as config text, by redis-server 7.0.15's rules (server.c main): an argument
     * starting with {@code --} opens a line, unless the option before it has no value yet: then it is that option's
     * value ({@code --port --loglevel verbose} is {@code port "--loglevel" "verbose"}); {@code "--name value"} in one
     * argument is a whole line; {@code --save} followed by an option or by nothing is {@code save ""}.
     */
    static String commandLineOptions(String[] args, int from) {
        StringBuilder options = new StringBuilder();
        boolean lastHasValue = true;
        for (int i = from; i < args.length; i++) {
            String a = args[i];
            if (lastHasValue && a.startsWith("--")) {
                if (!options.isEmpty()) {
                    options.append('\n');
                }
                options.append(a.substring(2)).append(' ');
                List<String> words = Quoting.split(a);
                if (words != null && words.size() == 1) { // an option name alone: what follows is its value
                    lastHasValue = false;
                    boolean nextIsOption = i != args.length - 1 && args[i + 1].startsWith("--");
                    if (a.equalsIgnoreCase("--save") && (nextIsOption || i == args.length - 1)) {
                        options.append("\"\"");
                        lastHasValue = nextIsOption;
                    } else if (a.equalsIgnoreCase("--sentinel") && nextIsOption) {
                        lastHasValue = true; // a pseudo option without a value
                    }
                } else {
                    lastHasValue = true;
                }
            } else {
                options.append(Quoting.repr(a)).append(' ');
                lastHasValue = true;
            }
        }
        return options.toString();
    }

    /** Applies redis.conf-syntax text, {@code depth} includes deep. */
    void load(String text, int depth) throws ConfigException {
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
            } else if (words.isEmpty()) {
                continue;
            } else if (words.getFirst().equalsIgnoreCase("include") && words.size() == 2) {
                include(words.get(1), depth);
                continue;
            } else {
                reason = apply(words);
            }
            if (reason != null) {
                throw new ConfigException("\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at line "
                        + (n + 1) + "\n>>> '" + line + "'\n" + reason);
            }
        }
    }

    private void include(String file, int depth) throws ConfigException {
        if (depth > 16) {
            throw new ConfigException("Fatal error, too many nested include directives (at '" + file + "')");
        }
        String text;
        try {
            text = Files.readString(Path.of(file), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new ConfigException("Fatal error, can't open config file '" + file + "': " + reason(e));
        }
        load(text, depth + 1);
    }

    private static String reason(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "No such file or directory";
        }
        if (e instanceof AccessDeniedException) {
            return "Permission denied";
        }
        return e.getMessage();
    }

    private String apply(List<String> words) {
        if (words.getFirst().equalsIgnoreCase("user") && words.size() >= 2) {
            String err = Acl.checkUserDirective(words, config.userDirectives());
            if (err == null) {
                config.userDirectives().add(List.copyOf(words.subList(1, words.size())));
            }
            return err;
        }
        if (words.getFirst().equalsIgnoreCase("rename-command") && words.size() == 3) {
            return rename(words.get(1), words.get(2));
        }
        Param p = config.param(words.getFirst());
        if (p == null) {
            return "Bad directive or wrong number of arguments";
        }
        List<String> values = words.subList(1, words.size());
        // Multi-argument parameters take their words joined by spaces; every other one takes exactly one.
        boolean shutdownFlags = p.name().equals("shutdown-on-sigint") || p.name().equals("shutdown-on-sigterm");
        boolean multi = p == config.save || p == config.bind || p == config.clientOutputBufferLimit || p == config.replicaof
                || shutdownFlags || p.name().equals("oom-score-adj-values")
                || p.name().equals("latency-tracking-info-percentiles"); // Redis's MULTI_ARG_CONFIGs
        if (values.isEmpty() && p == config.save) {
            values = List.of(""); // a bare "save" line empties the save points, as in Redis (Tcl writes save "" so)
        } else if (values.isEmpty() && shutdownFlags) {
            values = List.of(""); // Redis's MULTI_ARG flags check their own count: its "must be one of" error
        } else if (values.isEmpty() || (!multi && values.size() != 1)) {
            return "wrong number of arguments";
        }
        try {
            if (p == config.save) {
                config.save.loadLine(values.size() == 1 ? values.getFirst() : String.join(" ", values));
            } else {
                p.set(String.join(" ", values));
            }
            return null;
        } catch (ConfigException e) {
            return e.getMessage();
        }
    }

    /**
     * Checks a {@code rename-command} line as Redis's config loader does against its command table (Spinel has every
     * command of Redis 7.0's, so its metadata stands in for the table, which is built later) and keeps it for
     * {@code CommandTable.rename}.
     */
    private String rename(String from, String to) {
        if (commandNames == null) {
            commandNames = new HashMap<>();
            CommandMetadata.all().keySet().forEach(name -> commandNames.put(name, name));
            for (List<String> done : config.commandRenames()) { // an earlier load of the same configuration
                String command = commandNames.remove(done.get(0).toLowerCase(Locale.ROOT));
                if (!done.get(1).isEmpty()) {
                    commandNames.put(done.get(1).toLowerCase(Locale.ROOT), command);
                }
            }
        }
        String command = commandNames.remove(from.toLowerCase(Locale.ROOT));
        if (command == null) {
            return "No such command in rename-command";
        }
        if (!to.isEmpty() && commandNames.putIfAbsent(to.toLowerCase(Locale.ROOT), command) != null) {
            return "Target command name already exists";
        }
        config.commandRenames().add(List.of(from, to));
        return null;
    }
}
