package dev.spinel.server.commands.server;

import dev.spinel.protocol.Args;
import dev.spinel.server.acl.Acl;
import dev.spinel.server.acl.User;
import dev.spinel.server.commands.common.Help;
import dev.spinel.server.config.ConfigException;
import dev.spinel.server.config.ConfigRewriter;
import dev.spinel.server.config.Param;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.engine.Command;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.replica.DatasetLoading;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;
import dev.spinel.server.log.Log;
import dev.spinel.store.Glob;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * CONFIG GET/SET/RESETSTAT/REWRITE/HELP over {@link ServerConfig}. CONFIG SET of several
 * parameters is all or nothing: every name is checked first, then values are applied in order and,
 * if one is refused, the ones already applied get their previous values back (as Redis 7.0).
 *
 * <p>Thread-safety: SET and REWRITE serialize on the config object; GET reads volatile values.
 */
public final class ConfigCommands {
    private ConfigCommands() {
    }

    public static void register(CommandTable t) {
        t.register("config", (s, a) -> {
            throw Errors.SYNTAX;
        });
        t.registerSub("config", "get", ConfigCommands::get);
        t.registerSub("config", "set", ConfigCommands::set);
        t.registerSub("config", "resetstat", ConfigCommands::resetstat);
        t.registerSub("config", "rewrite", ConfigCommands::rewrite);
        t.registerSub("config", "help", ConfigCommands::help);
    }

    // CONFIG GET parameter [parameter ...]
    static void get(Session s, Args a) {
        ServerConfig config = s.engine().config();
        // Matched names (lower case) -> name as replied and parameter; exact names reply as typed.
        Map<String, Object[]> matches = new LinkedHashMap<>();
        for (int i = 2; i < a.count(); i++) {
            String pattern = a.string(i);
            if (pattern.indexOf('*') < 0 && pattern.indexOf('?') < 0 && pattern.indexOf('[') < 0) {
                Param p = config.param(pattern);
                if (p != null) {
                    matches.putIfAbsent(pattern.toLowerCase(Locale.ROOT), new Object[]{pattern, p});
                }
                continue;
            }
            for (Param p : config.params()) {
                if (p.hidden()) {
                    continue;
                }
                addIfMatches(matches, pattern, p.name(), p);
                for (String alias : p.aliases()) {
                    addIfMatches(matches, pattern, alias, p);
                }
            }
        }
        s.out().map(matches.size());
        for (Object[] m : matches.values()) {
            s.out().bulk((String) m[0]);
            s.out().bulk(((Param) m[1]).get());
        }
    }

    private static void addIfMatches(Map<String, Object[]> matches, String pattern, String name, Param p) {
        if (!matches.containsKey(name) && Glob.matches(pattern, name, true)) {
            matches.put(name, new Object[]{name, p});
        }
    }

    // CONFIG SET parameter value [parameter value ...]
    static void set(Session s, Args a) {
        if ((a.count() & 1) != 0) {
            throw Errors.SYNTAX;
        }
        ServerConfig config = s.engine().config();
        int n = (a.count() - 2) / 2;
        if (s.engine().replicaRole().loading().any()) {
            for (int i = 0; i < n; i++) {
                Param p = config.param(a.string(2 + 2 * i));
                if (p != null && config.isDeniedWhileLoading(p)) {
                    throw new RedisError(DatasetLoading.LOADING); // before any other error, as Redis
                }
            }
        }
        List<Param> params = new ArrayList<>(n);
        List<String> typed = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String name = a.string(2 + 2 * i);
            Param p = config.param(name);
            if (p == null) {
                throw new RedisError("ERR Unknown option or number of arguments for CONFIG SET - '" + a.cString(2 + 2 * i) + "'");
            }
            // Spinel's own start-time parameters take their current value, so that a client setting back every
            // parameter CONFIG GET * lists (Redis's "CONFIG sanity") does not trip on names Redis has not.
            if (!p.mutable() && !(config.isSpinelOwn(p) && p.get().equals(a.string(3 + 2 * i)))) {
                throw failed(name, "can't set immutable config");
            }
            if (config.isProtected(p) && !protectedAllowed(s, config)) {
                throw failed(name, "can't set protected config");
            }
            String lower = name.toLowerCase(Locale.ROOT);
            for (String earlier : typed) {
                if (earlier.equals(lower)) {
                    throw failed(name, "duplicate parameter");
                }
            }
            typed.add(lower);
            params.add(p);
        }
        synchronized (config) {
            String[] previous = new String[n];
            for (int i = 0; i < n; i++) {
                previous[i] = params.get(i).get();
            }
            for (int i = 0; i < n; i++) {
                try {
                    params.get(i).set(a.string(3 + 2 * i));
                } catch (ConfigException e) {
                    restore(params, previous, i);
                    throw failed(a.string(2 + 2 * i), e.getMessage());
                }
            }
            // Then the running server acts on the new values (once per applier); if that fails, every
            // value goes back and the appliers run again so the server matches the old values.
            Set<ServerConfig.Applier> done = new LinkedHashSet<>();
            for (int i = 0; i < n; i++) {
                ServerConfig.Applier applier = config.applier(params.get(i));
                if (applier == null || !done.add(applier)) {
                    continue;
                }
                try {
                    applier.apply();
                } catch (ConfigException e) {
                    restore(params, previous, n);
                    for (ServerConfig.Applier undo : done) {
                        try {
                            undo.apply();
                        } catch (ConfigException again) {
                            Log.warning("CONFIG SET: could not restore the previous setting: " + again.getMessage());
                        }
                    }
                    throw failed(a.string(2 + 2 * i), e.getMessage());
                }
            }
        }
        s.out().ok();
    }

    /** Puts back the values of the first {@code count} parameters, newest first. */
    private static void restore(List<Param> params, String[] previous, int count) {
        for (int k = count - 1; k >= 0; k--) {
            try {
                params.get(k).set(previous[k]);
            } catch (ConfigException e) {
                throw new IllegalStateException("cannot restore " + params.get(k).name() + ": " + e.getMessage(), e);
            }
        }
    }

    private static boolean protectedAllowed(Session s, ServerConfig config) {
        return switch (config.enableProtectedConfigs.value()) {
            case "yes" -> true;
            case "local" -> ServerCommands.isLocal(s);
            default -> false;
        };
    }

    private static RedisError failed(String name, String reason) {
        return new RedisError("ERR CONFIG SET failed (possibly related to argument '" + name + "') - " + reason);
    }

    // CONFIG RESETSTAT
    static void resetstat(Session s, Args a) {
        s.engine().stats().reset();
        s.engine().keyspace().resetExpiredKeys();
        s.engine().evictor().resetStats();
        for (Command c : s.engine().commands().allWithSubcommands()) {
            c.resetStats();
        }
        s.out().ok();
    }

    // CONFIG REWRITE
    static void rewrite(Session s, Args a) {
        ServerConfig config = s.engine().config();
        Path file = config.configFile();
        if (file == null) {
            throw new RedisError("ERR The server is running without a config file");
        }
        rewrite(s, config, file, false);
        s.out().ok();
    }

    /** Rewrites the config file (every parameter when {@code forceAll}, as DEBUG CONFIG-REWRITE-FORCE-ALL). */
    static void rewrite(Session s, ServerConfig config, Path file, boolean forceAll) {
        synchronized (config) {
            try {
                List<String> users = null; // with an ACL file, users are not in the config file
                if (config.aclfile.value().isEmpty()) {
                    users = new ArrayList<>();
                    for (User u : s.engine().acl().users()) {
                        users.add(Acl.describe(u));
                    }
                }
                ConfigRewriter.rewrite(config, file, users, forceAll);
            } catch (IOException e) {
                throw new RedisError("ERR Rewriting config file: " + e.getMessage());
            }
        }
    }

    // CONFIG HELP
    static void help(Session s, Args a) {
        Help.reply(s, "CONFIG",
                "GET <pattern>",
                "    Return parameters matching the glob-like <pattern> and their values.",
                "SET <directive> <value>",
                "    Set the configuration <directive> to <value>.",
                "RESETSTAT",
                "    Reset statistics reported by the INFO command.",
                "REWRITE",
                "    Rewrite the configuration file.");
    }
}
