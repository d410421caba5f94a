package dev.spinel.server.durability;

import dev.spinel.persistence.RdbWriter;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.log.Log;
import dev.spinel.server.stats.ServerStats;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * One AOF rewrite in the background (Redis's rewrite child): on a thread of its own it writes the new base from a
 * point-in-time snapshot, then the manifest naming it. A {@link BackgroundChild} stands for Redis's child while it
 * runs: killing that process fails the rewrite, as killing Redis's child does. The files the new base replaces become
 * history, as in Redis 7.0: deleted, or kept in the manifest as 'h' entries while {@code aof-disable-auto-gc} is yes.
 * When the log is being switched on, its first incremental file is a temporary one, renamed into the manifest only
 * once the base is complete.
 *
 * <p>Thread-safety: {@link #start} once; {@link #stop} and {@link #alive} from any thread.
 */
final class AofRewriteJob {
    private final ServerConfig config;
    private final Path dir;
    private final Path manifestPath;
    private final RdbWriter.Snapshot snap;
    private final List<byte[]> functions;
    private final AofManifest before;
    /** The incremental file the log writes after this rewrite; null when the log is off. */
    private final AofManifest.Part newIncr;
    /** The log's temporary first file (renamed to {@link #newIncr} at the end) and its writer, or null. */
    private final Path tempIncr;
    private final AofFile tempWriter;
    private final AofRewrites outcome;
    /** Told whether the rewrite succeeded, once its files and the outcome are final. */
    private final Consumer<Boolean> ended;
    private volatile int killedBy;
    private volatile boolean stopped;
    private volatile Thread thread;
    private volatile BackgroundChild child;

    AofRewriteJob(ServerConfig config, Path dir, Path manifestPath, RdbWriter.Snapshot snap, List<byte[]> functions,
                  AofManifest before, AofManifest.Part newIncr, Path tempIncr, AofFile tempWriter, AofRewrites outcome,
                  Consumer<Boolean> ended) {
        this.config = config;
        this.dir = dir;
        this.manifestPath = manifestPath;
        this.snap = snap;
        this.functions = functions;
        this.before = before;
        this.newIncr = newIncr;
        this.tempIncr = tempIncr;
        this.tempWriter = tempWriter;
        this.outcome = outcome;
        this.ended = ended;
    }

    /** Starts the stand-in child and the thread (before the command that asked for the rewrite answers). */
    void start(ServerStats stats) {
        stats.totalForks.increment();
        child = BackgroundChild.start(signal -> {
            killedBy = signal;
            snap.abort("the rewrite's child was killed");
        });
        Thread t = new Thread(this::run, "spinel-aof-rewrite");
        t.setDaemon(true);
        thread = t;
        t.start();
    }

    Thread thread() {
        return thread;
    }

    boolean alive() {
        Thread t = thread;
        return t != null && t.isAlive();
    }

    /** Stops the rewrite (CONFIG SET appendonly no, shutdown): its base is never used; not counted as a failure. */
    void stop(boolean shutdown) {
        Thread t = thread;
        if (t != null && t.isAlive()) {
            BackgroundChild c = child;
            if (shutdown) {
                Log.warning("There is a child rewriting the AOF. Killing it!");
            } else {
                Log.notice("Killing running AOF rewrite child: " + (c != null ? c.pid() : t.threadId()));
            }
            stopped = true;
            snap.abort("AOF rewrite stopped");
        }
    }

    private void run() {
        boolean ok = false;
        try {
            long baseSeq = 1 + (before.base() == null ? 0 : before.base().seq());
            AofManifest.Part base = AofBase.part(config, baseSeq);
            AofBase.write(config, snap, functions, dir, base);
            if (tempIncr != null) {
                Files.move(tempIncr, dir.resolve(newIncr.file()), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                tempWriter.renamedTo(dir.resolve(newIncr.file()));
            }
            boolean keep = config.aofDisableAutoGc.value();
            List<AofManifest.Part> parts = new ArrayList<>();
            parts.add(base);
            if (keep) {
                parts.addAll(history());
            }
            if (newIncr != null) {
                parts.add(newIncr);
            }
            new AofManifest(parts).write(manifestPath);
            for (AofManifest.Part old : before.parts()) { // what the new manifest does not name
                if (parts.stream().noneMatch(p -> p.file().equals(old.file()))) {
                    Files.deleteIfExists(dir.resolve(old.file()));
                }
            }
            ok = true;
            Log.notice("Background AOF rewrite finished successfully");
        } catch (IOException | RuntimeException e) {
            snap.cancel();
            if (killedBy != 0) {
                Log.warning("Background AOF rewrite terminated by signal " + killedBy);
            } else if (!stopped) {
                Log.warning("Background AOF rewrite failed: " + e);
            }
        } finally {
            BackgroundChild c = child;
            if (c != null) {
                c.end();
            }
            if (ok) {
                outcome.succeeded();
            } else if (!stopped) {
                outcome.failed();
            }
            ended.accept(ok);
        }
    }

    /**
     * The history after this rewrite, in Redis's order (each file put at the head of the list as it is retired: the old
     * base first, then the incremental files from the last one replaced back to the first): the replaced
     * incremental files, the old base, then the history before.
     */
    private List<AofManifest.Part> history() {
        List<AofManifest.Part> h = new ArrayList<>();
        for (AofManifest.Part p : before.incrementals()) {
            if (newIncr == null || !p.file().equals(newIncr.file())) {
                h.add(new AofManifest.Part(p.file(), p.seq(), 'h'));
            }
        }
        if (before.base() != null) {
            h.add(new AofManifest.Part(before.base().file(), before.base().seq(), 'h'));
        }
        for (AofManifest.Part p : before.parts()) {
            if (p.type() == 'h') {
                h.add(p);
            }
        }
        return h;
    }

    /**
     * Deletes the history files of the manifest in {@code dir} and rewrites it without them (Redis's
     * aofDelHistoryFiles, when aof-disable-auto-gc is set back to no).
     */
    static void deleteHistory(Path dir, Path manifestPath) {
        try {
            AofManifest m = AofManifest.read(manifestPath);
            List<AofManifest.Part> kept = m.parts().stream().filter(p -> p.type() != 'h').toList();
            if (kept.size() == m.parts().size()) {
                return;
            }
            new AofManifest(kept).write(manifestPath);
            for (AofManifest.Part p : m.parts()) {
                if (p.type() == 'h') {
                    Log.notice("Removing the history file " + p.file() + " in the background");
                    Files.deleteIfExists(dir.resolve(p.file()));
                }
            }
        } catch (IOException e) {
            Log.warning("Can't delete the AOF history files: " + e.getMessage());
        }
    }
}
