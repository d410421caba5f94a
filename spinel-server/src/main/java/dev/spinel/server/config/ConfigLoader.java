package dev.spinel.server.config;

import dev.spinel.server.acl.Acl;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;

/**
 * Reading a {@link ServerConfig} as {@code redis-server} reads its configuration: the command line (a config
 * file or {@code -} for standard input, then {@code --name value...} options), redis.conf-syntax text with
 * {@code include} and {@code user} directives, and Redis 7.0's texts for a bad line.
 *
 * <p>Thread-safety: none; used at start-up (and by tests) on one thread, before the configuration is shared.
 */
final class ConfigLoader {
    private final ServerConfig config;

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
        StringBuilder options = new StringBuilder();
        for (; i < args.length; i++) {
            String a = args[i];
            if (a.startsWith("--") && a.length() > 2) {
                if (!options.isEmpty()) {
                    options.append('\n');
                }
                options.append(a.substring(2)).append(' ');
                // "--save" followed by another option (or nothing) means save "", as in Redis 7.0.
                boolean noValue = i == args.length - 1 || args[i + 1].startsWith("--");
                if (noValue && a.equalsIgnoreCase("--save")) {
                    options.append("\"\"");
                }
            } else {
                options.append(Quoting.repr(a)).append(' ');
            }
        }
        c.load(fileText + "\n" + options);
        return c;
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
        Param p = config.param(words.getFirst());
        if (p == null) {
            return "Bad directive or wrong number of arguments";
        }
        List<String> values = words.subList(1, words.size());
        // Multi-argument parameters take their words joined by spaces; every other one takes exactly one.
        boolean multi = p == config.save || p == config.bind || p == config.clientOutputBufferLimit || p == config.replicaof;
        // a bare "save" line (Redis's test suite writes one for save "") turns saving off, as in Redis 7.0
        if (values.isEmpty() && p == config.save) {
            values = List.of("");
        }
        if (values.isEmpty() || (!multi && values.size() != 1)) {
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
}
