package dev.spinel.server.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Redis 7.0 parameters that tune subsystems Spinel does not have (active defragmentation, jemalloc, the
 * process title, syslog, OOM-score adjustment, the ACL log, thread CPU affinity, ...). They are
 * accepted with Redis's names, defaults, validation and error texts, so that configuration files, CONFIG GET
 * and CONFIG SET written for Redis work unchanged; setting them changes nothing else. Replication and cluster
 * parameters are not here: those Spinel implements are in {@link ServerConfig} with their subsystems.
 *
 * <p>Thread-safety: as {@link Params}: values are volatile.
 */
final class CompatParams {
    private static final long INT_MAX = Integer.MAX_VALUE;
    private static final long LLONG_MAX = Long.MAX_VALUE;

    private CompatParams() {
    }

    static void register(ServerConfig c) {
        // Memory and expiry tuning.
        c.add(new Params.Bool("activerehashing", true, true, null));
        c.add(new Params.Int("active-expire-effort", true, 1, 1, 10, null));
        c.add(new Params.Bool("dynamic-hz", true, true, null));
        c.add(new Params.Int("maxmemory-eviction-tenacity", true, 10, 0, 100, null));
        c.add(new Canonical("maxmemory-clients", true, "0", CompatParams::memoryOrPercent));
        c.add(new Params.Bool("jemalloc-bg-thread", true, true, null));
        c.add(new Params.Bool("disable-thp", false, true, null));
        // Active defragmentation needs Redis's own jemalloc; this Redis-compatible answer is Spinel's too.
        c.add(new Canonical("activedefrag", true, "no", CompatParams::activedefrag));
        c.add(new Params.Int("active-defrag-threshold-lower", true, 10, 0, 1000, null));
        c.add(new Params.Int("active-defrag-threshold-upper", true, 100, 0, 1000, null));
        c.add(Params.Memory.bounded("active-defrag-ignore-bytes", true, 100L << 20, 1, LLONG_MAX));
        c.add(new Params.Int("active-defrag-cycle-min", true, 1, 1, 99, null));
        c.add(new Params.Int("active-defrag-cycle-max", true, 25, 1, 99, null));
        c.add(new Params.Int("active-defrag-max-scan-fields", true, 1000, 1, LLONG_MAX, null));
        // Persistence tuning.
        c.add(new Params.Bool("no-appendfsync-on-rewrite", true, false, null));
        c.add(new Params.Bool("aof-rewrite-incremental-fsync", true, true, null));
        c.add(new Params.Bool("rdb-save-incremental-fsync", true, true, null));
        c.add(new Params.Bool("rdb-del-sync-files", true, false, null));
        c.add(new Params.Enum("sanitize-dump-payload", true, "no", List.of("no", "yes", "clients"), null));
        // Process, logging, shutdown.
        c.add(new Params.Bool("always-show-logo", false, false, null));
        c.add(new Params.Bool("set-proc-title", false, true, null));
        c.add(new Canonical("proc-title-template", true, "{title} {listen-addr} {server-mode}", CompatParams::procTitle));
        c.add(new Params.Bool("syslog-enabled", false, false, null));
        c.add(new Params.Text("syslog-ident", false, "redis", null, null));
        c.add(new Params.Enum("syslog-facility", false, "local0", List.of("user", "local0", "local1", "local2", "local3",
                "local4", "local5", "local6", "local7"), null));
        c.add(new Params.Bool("crash-log-enabled", true, true, null));
        c.add(new Params.Bool("crash-memcheck-enabled", true, true, null));
        c.add(new Canonical("oom-score-adj", true, "no", CompatParams::oomScoreAdj));
        // Redis's hidden switch from abort() to exit(1) on a panic (its corrupt-dump tests set it); a JVM does not abort
        c.add(new Params.Bool("use-exit-on-panic", true, false, null).hide());
        // Redis's hidden pace of serving clients during a load (rdb.tcl sets it); Spinel's loads do not pause for clients
        c.add(new Params.Int("loading-process-events-interval-bytes", true, 2L << 20, 1024, INT_MAX, null).hide());
        c.add(new Canonical("oom-score-adj-values", true, "0 200 800", CompatParams::oomScoreAdjValues));
        c.add(new Canonical("shutdown-on-sigint", true, "default", CompatParams::shutdownFlags));
        c.add(new Canonical("shutdown-on-sigterm", true, "default", CompatParams::shutdownFlags));
        c.add(new Params.Int("shutdown-timeout", true, 10, 0, INT_MAX, null));
        c.add(new Params.Enum("propagation-error-behavior", true, "ignore", List.of("ignore", "panic", "panic-on-replicas"), null));
        c.add(new Params.Text("ignore-warnings", true, "", null, null));
        c.add(new Params.Enum("enable-module-command", false, "no", List.of("no", "yes", "local"), null));
        c.add(new Params.Int("socket-mark-id", false, 0, 0, INT_MAX, null));
        c.add(new Params.Int("unixsocketperm", false, 0, 0, 0777, null));
        c.add(new Params.Text("bind-source-addr", true, "", null, null));
        // Redis's CPU affinity of its main, background-I/O, AOF-rewrite and BGSAVE threads (config file only, empty:
        // not pinned). Spinel's threads are the JVM's and are not pinned; `taskset` pins the whole process.
        for (String cpulist : List.of("server_cpulist", "bio_cpulist", "aof_rewrite_cpulist", "bgsave_cpulist")) {
            c.add(new Params.Text(cpulist, false, "", null, null));
        }
    }

    /** A parameter whose value is checked and put in canonical form by one function (Redis's special configs). */
    static final class Canonical extends Param {
        @FunctionalInterface
        interface Form {
            String canonical(String v) throws ConfigException;
        }

        private final String dflt;
        private final Form form;
        private volatile String value;

        Canonical(String name, boolean mutable, String dflt, Form form) {
            super(name, mutable);
            this.dflt = dflt;
            this.value = dflt;
            this.form = form;
        }

        @Override
        public String get() {
            return value;
        }

        @Override
        public String defaultValue() {
            return dflt;
        }

        @Override
        public void set(String v) throws ConfigException {
            value = form.canonical(v);
        }
    }

    /** maxmemory-clients: a memory value, or a percentage of maxmemory (at most 100%). */
    private static String memoryOrPercent(String v) throws ConfigException {
        if (v.endsWith("%")) {
            long pct;
            try {
                pct = Params.parseStrictLong(v.substring(0, v.length() - 1));
            } catch (ConfigException e) {
                throw new ConfigException("argument must be a memory or percent value");
            }
            if (pct < 0) {
                throw new ConfigException("argument must be a memory or percent value");
            }
            if (pct > 100) {
                throw new ConfigException("percentage argument must be less or equal to 100");
            }
            return pct + "%";
        }
        try {
            return Long.toString(Params.memtoull(v));
        } catch (ConfigException e) {
            throw new ConfigException("argument must be a memory or percent value");
        }
    }

    private static String activedefrag(String v) throws ConfigException {
        String lower = v.toLowerCase(Locale.ROOT);
        if (lower.equals("no")) {
            return "no";
        }
        if (!lower.equals("yes")) {
            throw new ConfigException("argument must be 'yes' or 'no'");
        }
        throw new ConfigException("Active defragmentation cannot be enabled: it requires a Redis server compiled with a "
                + "modified Jemalloc like the one shipped by default with the Redis source distribution");
    }

    /** Space-separated percentiles in [0, 100], shown as C's %f with the trailing zeros cut (Redis's trimDoubleString). */
    static String percentiles(String v) throws ConfigException {
        List<String> out = new ArrayList<>();
        // Split on single spaces, as sdssplitlen: doubled or edge spaces make empty words, which do not parse.
        for (String word : v.isEmpty() ? List.<String>of() : List.of(v.split(" ", -1))) {
            double d;
            try {
                if (word.matches(".*[dDfF]$") && !word.matches("(?i)[+-]?inf")) {
                    throw new NumberFormatException(word); // Java's suffixes, which C's strtod does not read
                }
                d = Double.parseDouble(word);
            } catch (NumberFormatException e) {
                throw new ConfigException("Invalid latency-tracking-info-percentiles parameters");
            }
            if (!(d >= 0.0 && d <= 100.0)) {
                throw new ConfigException("latency-tracking-info-percentiles parameters should sit between [0.0,100.0]");
            }
            String f = String.format(Locale.ROOT, "%f", d);
            f = f.contains(".") ? f.replaceAll("0+$", "").replaceAll("\\.$", "") : f;
            out.add(f);
        }
        return String.join(" ", out);
    }

    /** oom-score-adj: relative is yes (Redis's enum gives both one value, which it names by its first name). */
    private static String oomScoreAdj(String v) throws ConfigException {
        return switch (v.toLowerCase(Locale.ROOT)) {
            case "no" -> "no";
            case "yes", "relative" -> "yes";
            case "absolute" -> "absolute";
            default -> throw new ConfigException("argument(s) must be one of the following: no, yes, relative, absolute");
        };
    }

    private static String oomScoreAdjValues(String v) throws ConfigException {
        List<String> w = List.of(v.split(" ", -1));
        if (w.size() != 3) {
            throw new ConfigException("wrong number of arguments");
        }
        List<String> out = new ArrayList<>();
        for (String word : w) {
            long n;
            try {
                n = Long.parseLong(word);
            } catch (NumberFormatException e) {
                n = Long.MIN_VALUE;
            }
            if (n < -2000 || n > 2000) {
                throw new ConfigException("Invalid oom-score-adj-values, elements must be between -2000 and 2000.");
            }
            out.add(Long.toString(n));
        }
        return String.join(" ", out);
    }

    private static final List<String> SHUTDOWN_FLAGS = List.of("save", "nosave", "now", "force");

    /** shutdown-on-sigint/sigterm: flags among default, save, nosave, now, force, shown in that order. */
    private static String shutdownFlags(String v) throws ConfigException {
        List<String> w = words(v);
        if (w.isEmpty()) {
            throw new ConfigException("argument(s) must be one of the following: default, save, nosave, now, force");
        }
        boolean[] set = new boolean[SHUTDOWN_FLAGS.size()];
        for (String word : w) {
            String lower = word.toLowerCase(Locale.ROOT);
            int i = SHUTDOWN_FLAGS.indexOf(lower);
            if (i < 0 && !lower.equals("default")) {
                throw new ConfigException("argument(s) must be one of the following: default, save, nosave, now, force");
            }
            if (i >= 0) {
                set[i] = true;
            }
        }
        if (set[0] && set[1]) {
            throw new ConfigException("shutdown options SAVE and NOSAVE can't be used simultaneously");
        }
        List<String> out = new ArrayList<>();
        for (int i = 0; i < set.length; i++) {
            if (set[i]) {
                out.add(SHUTDOWN_FLAGS.get(i));
            }
        }
        return out.isEmpty() ? "default" : String.join(" ", out);
    }

    private static final List<String> TITLE_VARIABLES = List.of("{title}", "{listen-addr}", "{server-mode}", "{port}",
            "{tls-port}", "{unixsocket}", "{config-file}");

    /** proc-title-template: not empty, and every {variable} one Redis knows. */
    private static String procTitle(String v) throws ConfigException {
        String rest = v;
        for (String var : TITLE_VARIABLES) {
            rest = rest.replace(var, "");
        }
        if (v.isEmpty() || rest.contains("{") || rest.contains("}")) {
            throw new ConfigException("template format is invalid or contains unknown variables");
        }
        return v;
    }

    private static List<String> words(String v) {
        List<String> out = new ArrayList<>();
        for (String w : v.trim().split(" +")) {
            if (!w.isEmpty()) {
                out.add(w);
            }
        }
        return out;
    }
}
