package dev.spinel.server;

import dev.spinel.server.config.ConfigException;
import dev.spinel.server.config.Param;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.log.Log;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.BooleanSupplier;

/**
 * Redis's oom-score-adj (setOOMScoreAdj): while {@code oom-score-adj} is not {@code no}, the process's Linux OOM
 * score adjustment ({@code /proc/self/oom_score_adj}) is the {@code oom-score-adj-values} entry of its class
 * (master or replica), added to the score the process had before Spinel first changed it ({@code yes}, alias
 * {@code relative}) or as given ({@code absolute}), clamped to -1000..1000; back to {@code no}, that original score
 * is restored. Redis's third class, its background-save child, has no counterpart: Spinel saves on a thread of its
 * one process. Where the file cannot be read or written (not Linux, or no privilege to lower the score), applying
 * fails with Redis's reason and CONFIG SET puts the previous values back.
 *
 * <p>Thread-safety: {@link #apply} is synchronized (CONFIG SET and a change of replication role may call it from
 * different threads).
 */
public final class OomScoreAdj {
    private static final Path PROC_FILE = Path.of("/proc/self/oom_score_adj");
    private static final String FAILED = "Failed to set current oom_score_adj. Check server logs.";

    private final Path file;
    private final Param mode;
    private final Param values;
    private final BooleanSupplier replica;
    /** Whether the score is Spinel's (Redis's oom_score_adjusted_by_redis), and the one found before. */
    private boolean adjusted;
    private int base;

    OomScoreAdj(Path file, Param mode, Param values, BooleanSupplier replica) {
        this.file = file;
        this.mode = mode;
        this.values = values;
        this.replica = replica;
    }

    /** The process's own score, applied whenever either parameter changes (CONFIG SET rolls back on failure). */
    static OomScoreAdj install(ServerConfig config, BooleanSupplier replica) {
        OomScoreAdj oom = new OomScoreAdj(PROC_FILE, config.param("oom-score-adj"), config.param("oom-score-adj-values"), replica);
        ServerConfig.Applier once = oom::apply; // one applier for both: a CONFIG SET of the two applies once
        config.onApply(oom.mode, once);
        config.onApply(oom.values, once);
        return oom;
    }

    /** Sets the score the configuration gives the current class, or restores the original one when off. */
    public synchronized void apply() throws ConfigException {
        String m = mode.get();
        int val;
        if (!m.equals("no")) {
            if (!adjusted) {
                try {
                    base = Integer.parseInt(Files.readString(file, StandardCharsets.US_ASCII).trim());
                } catch (IOException | NumberFormatException e) {
                    Log.warning("Unable to read oom_score_adj: " + e.getMessage());
                    throw new ConfigException(FAILED);
                }
                adjusted = true;
            }
            String[] v = values.get().split(" ");
            val = Integer.parseInt(v[replica.getAsBoolean() ? 1 : 0]);
            if (!m.equals("absolute")) {
                val += base;
            }
            val = Math.max(-1000, Math.min(1000, val));
        } else if (adjusted) {
            adjusted = false;
            val = base;
        } else {
            return;
        }
        try {
            Files.writeString(file, val + "\n", StandardCharsets.US_ASCII);
        } catch (IOException e) {
            Log.warning("Unable to write oom_score_adj: " + e.getMessage());
            throw new ConfigException(FAILED);
        }
    }

    /** {@link #apply} where no caller can take the failure back (start, change of role): logged only. */
    public void applyLogged() {
        try {
            apply();
        } catch (ConfigException e) {
            Log.warning(e.getMessage());
        }
    }
}
