package dev.spinel.server.durability;

import dev.spinel.persistence.KeyspaceLoader;
import dev.spinel.persistence.RdbFiles;
import dev.spinel.persistence.RdbWriter;
import dev.spinel.persistence.ValueCodecs;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.engine.EngineHooks;
import dev.spinel.server.engine.Propagator;
import dev.spinel.server.log.Log;
import dev.spinel.server.scripting.FunctionLibraries;
import dev.spinel.store.Keyspace;

import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The append-only log in Redis 7.0's multi-part layout, under {@code dir/appenddirname}:
 * <pre>
 *   appendonly.aof.manifest         file appendonly.aof.1.base.rdb seq 1 type b
 *                                   file appendonly.aof.1.incr.aof seq 1 type i
 *   appendonly.aof.1.base.rdb       the dataset when the log was created (RDB, aof-base=1)
 *   appendonly.aof.1.incr.aof       every write since, as RESP commands
 * </pre>
 * {@link #load} replays the base then the incremental files; {@link #open} creates the layout when
 * there is none (the base is a snapshot of what is in memory, e.g. loaded from dump.rdb) and appends
 * to the last incremental file. A torn tail of the last file is cut at the last complete command
 * when {@code aof-load-truncated yes} (with a log line); anything else malformed stops the start with
 * the file name and offset.
 *
 * <p>Thread-safety: load and open run once at start-up; afterwards the {@link AofFile} is shared.
 */
public final class Aof implements AutoCloseable {
    private final ServerConfig config;
    private final Engine engine;
    /** The function libraries, loaded with the keys and written into a rewrite's preamble. */
    private final FunctionLibraries functions;
    /** The server's rewrite outcomes (shared by every log it starts). */
    private final AofRewrites outcome;
    private AofFile file;

    /**
     * The propagator of a server without a log that has a replication stream: the same rewrites as the
     * log's, fed to {@link EngineHooks#replicationFeed} only; every position is acknowledged at once.
     */
    public static Propagator replicationOnly(Engine engine) {
        return new AofPropagator(null, engine);
    }

    Aof(ServerConfig config, Engine engine, FunctionLibraries functions, AofRewrites outcome) {
        this.outcome = outcome;
        this.functions = functions;
        this.config = config;
        this.engine = engine;
    }

    Path dir() {
        return Path.of(config.dir.value()).resolve(config.appenddirname.value());
    }

    Path manifestPath() {
        return dir().resolve(config.appendfilename.value() + ".manifest");
    }

    public boolean exists() {
        return Files.exists(manifestPath());
    }

    /** Moves a pre-7.0 single-file log of the server directory into this layout when Redis would ({@link AofUpgrade}). */
    public void upgradeIfNeeded() throws IOException {
        AofUpgrade.ifNeeded(Path.of(config.dir.value()), dir(), manifestPath(), config.appendfilename.value());
    }

    /**
     * Replays every file of the manifest into the keyspace (the log is not yet open for writes); the server is
     * loading meanwhile ({@link LoadingProgress}: clients get -LOADING, INFO shows the progress).
     */
    public void load() throws IOException {
        AofManifest m = AofManifest.read(manifestPath());
        AofManifest.Part base = m.base();
        StringBuilder missing = new StringBuilder(); // Redis stats every file first: one missing is fatal
        for (AofManifest.Part p : m.parts()) {
            if (p.type() != 'h' && !Files.exists(dir().resolve(p.file()))) {
                missing.append(missing.isEmpty() ? "" : "\n").append("Unable to obtain the AOF file ").append(p.file())
                        .append(" length. stat: No such file or directory");
            }
        }
        if (!missing.isEmpty()) {
            throw new IOException(missing.toString());
        }
        List<AofManifest.Part> incr = m.incrementals();
        long total = base == null ? 0 : sizeOf(dir().resolve(base.file()));
        for (AofManifest.Part part : incr) {
            total += sizeOf(dir().resolve(part.file()));
        }
        LoadingProgress progress = new LoadingProgress(config, engine.replicaRole().loading());
        progress.begin(total);
        try {
            long start = System.nanoTime();
            if (base != null) {
                Path p = dir().resolve(base.file());
                long rdb = 0;
                if (isRdb(p)) { // Redis's preamble: an RDB, then (in a pre-7.0 single-file log) commands
                    rdb = progress.rdb(engine.keyspace(), p, new KeyspaceLoader(engine.keyspace(), System.currentTimeMillis(),
                            Persistence.functionLoader(this.functions)).perKey(progress));
                }
                if (rdb < Files.size(p)) {
                    replay(p, rdb, incr.isEmpty(), progress);
                }
                progress.fileDone(sizeOf(p));
                Log.notice("DB loaded from base file " + base.file() + ": " + String.format("%.3f", (System.nanoTime() - start) / 1e9) + " seconds");
            }
            for (int i = 0; i < incr.size(); i++) {
                Path p = dir().resolve(incr.get(i).file());
                replay(p, 0, i == incr.size() - 1, progress);
                progress.fileDone(sizeOf(p));
                Log.notice("DB loaded from incr file " + incr.get(i).file());
            }
        } finally {
            progress.end();
        }
    }

    private static long sizeOf(Path p) {
        try {
            return Files.size(p);
        } catch (IOException e) {
            return 0; // missing: the replay says so
        }
    }

    /** Everything logged so far written to the file, waiting up to 10 s; false if that failed. */
    boolean drain() {
        AofFile f = file;
        return f == null || f.drain(10_000);
    }

    /**
     * DEBUG LOADAOF's load: replays the log's files into the (emptied) dataset without logging the replay
     * again. The caller holds every stripe.
     */
    void loadWithoutLogging() throws IOException {
        Propagator p = engine.hooks().propagator();
        engine.hooks().propagator(null);
        try {
            load();
        } finally {
            engine.hooks().propagator(p);
        }
    }

    private static boolean isRdb(Path p) throws IOException {
        try (InputStream in = Files.newInputStream(p)) {
            byte[] magic = in.readNBytes(5);
            return new String(magic, StandardCharsets.US_ASCII).equals("REDIS");
        }
    }

    private void replay(Path p, long from, boolean last, LoadingProgress progress) throws IOException {
        if (!Files.exists(p)) {
            throw new IOException("The AOF file " + p.getFileName() + " doesn't exist");
        }
        AofLoader.Result r = new AofLoader(engine).replay(p, from, progress);
        if (!r.truncated()) {
            return;
        }
        if (!last || !config.aofLoadTruncated.value()) {
            throw new IOException("Unexpected end of file reading the append only file " + p.getFileName() + " at offset "
                    + r.validLength() + ". You can: 1) Make a backup of your AOF file, then use ./redis-check-aof --fix <filename.manifest>. "
                    + "2) Alternatively you can set the 'aof-load-truncated' configuration option to yes and restart the server.");
        }
        Log.warning("!!! Warning: short read while loading the AOF file " + p.getFileName() + "!!!");
        Log.warning("!!! Truncating the AOF " + p.getFileName() + " at offset " + r.validLength() + " !!!");
        try (FileChannel ch = FileChannel.open(p, StandardOpenOption.WRITE)) {
            ch.truncate(r.validLength());
            ch.force(true);
        }
        Log.warning("AOF " + p.getFileName() + " loaded anyway because aof-load-truncated is enabled");
    }

    /**
     * CONFIG SET appendonly yes: starts logging from the dataset in memory. Under every stripe, a
     * snapshot of the dataset is armed, a temporary incremental file ({@code temp-<appendfilename>.incr}, as Redis's)
     * is opened and the log hook installed, so every later write is in that file and none is in the capture; the new
     * base is written in the background, the temporary file renamed to the new incremental file, and the manifest then
     * lists exactly the new base and incremental file (older files of a previous log become history).
     * {@code ended} is told whether that rewrite succeeded; on failure the caller gives the start up ({@link #abandonStart}).
     */
    void startFromMemory(Consumer<Boolean> ended) throws IOException {
        Files.createDirectories(dir());
        AofManifest before = exists() ? AofManifest.read(manifestPath()) : new AofManifest(List.of());
        long incrSeq = 1 + before.incrementals().stream().mapToLong(AofManifest.Part::seq).max().orElse(0);
        AofManifest.Part newIncr = new AofManifest.Part(config.appendfilename.value() + "." + incrSeq + ".incr.aof", incrSeq, 'i');
        Path temp = tempIncr();
        if (!rewriting.compareAndSet(false, true)) {
            throw new IOException("a rewrite is already running");
        }
        Keyspace ks = engine.keyspace();
        RdbWriter.Snapshot snap;
        List<byte[]> functions;
        try {
            ks.lockAll();
            try {
                snap = new RdbWriter(ValueCodecs.standard()).arm(ks, RdbWriter.Access.NONE);
                functions = this.functions.codes(); // with the keys: changed under every stripe
                try {
                    Files.deleteIfExists(temp);
                    file = new AofFile(config, temp, engine.stats().aofFsync);
                } catch (IOException | RuntimeException e) {
                    snap.cancel();
                    throw e;
                }
                engine.hooks().propagator(new AofPropagator(file, engine));
            } finally {
                ks.unlockAll();
            }
        } catch (IOException | RuntimeException e) {
            rewriting.set(false);
            throw e;
        }
        AofFile writer = file;
        writtenAtBase = writer.written(); // the size counts from here (baseSize 0) until the base is written
        startJob(snap, functions, before, newIncr, temp, writer, ended);
    }

    /** The log's temporary first file while it is switched on (Redis's getTempIncrAofName). */
    private Path tempIncr() {
        return dir().resolve("temp-" + config.appendfilename.value() + ".incr");
    }

    /**
     * The rewrite that switched the log on failed: the log stops and its temporary file is deleted (the writes it
     * holds are in memory; the next attempt's base captures them), as Redis's aofDelTempIncrAofFile.
     */
    void abandonStart() {
        closeLog();
        Log.notice("Removing the temp incr aof file " + tempIncr().getFileName() + " in background");
        try {
            Files.deleteIfExists(tempIncr());
        } catch (IOException e) {
            Log.warning("Can't remove the temp incr aof file: " + e.getMessage());
        }
    }

    private void startJob(RdbWriter.Snapshot snap, List<byte[]> functions, AofManifest before, AofManifest.Part newIncr,
                          Path temp, AofFile tempWriter, Consumer<Boolean> ended) {
        AofRewriteJob j = new AofRewriteJob(config, dir(), manifestPath(), snap, functions, before, newIncr, temp, tempWriter,
                outcome, ok -> {
                    if (ok && newIncr != null) {
                        measure();
                    }
                    rewriting.set(false);
                    if (ended != null) {
                        ended.accept(ok);
                    }
                });
        job = j;
        j.start(engine.stats());
    }

    /** aof-disable-auto-gc set back to no: the history files go now (a rewrite running meanwhile drops them when it ends). */
    void deleteHistory() {
        if (!rewriting.get() && exists()) {
            AofRewriteJob.deleteHistory(dir(), manifestPath());
        }
    }

    /** Opens the last incremental file for appending, creating the layout first if there is none. */
    public void open() throws IOException {
        Files.createDirectories(dir());
        AofManifest m;
        if (exists()) {
            m = AofManifest.read(manifestPath());
        } else {
            AofManifest.Part base = AofBase.part(config, 1);
            String baseName = base.file();
            AofBase.write(config, new RdbWriter(ValueCodecs.standard()).snapshot(engine.keyspace(), RdbWriter.Access.NONE),
                    this.functions.codes(), dir(), base);
            m = new AofManifest(List.of(base));
            Log.notice("Creating AOF base file " + baseName + " on server start");
        }
        List<AofManifest.Part> incr = m.incrementals();
        String incrName;
        if (incr.isEmpty()) {
            long seq = 1;
            incrName = config.appendfilename.value() + "." + seq + ".incr.aof";
            List<AofManifest.Part> parts = new ArrayList<>(m.parts());
            parts.add(new AofManifest.Part(incrName, seq, 'i'));
            Files.deleteIfExists(dir().resolve(incrName));
            Files.createFile(dir().resolve(incrName));
            new AofManifest(parts).write(manifestPath());
            Log.notice("Creating AOF incr file " + incrName + " on server start");
        } else {
            incrName = incr.getLast().file();
        }
        file = new AofFile(config, dir().resolve(incrName), engine.stats().aofFsync);
        measure();
        engine.hooks().propagator(new AofPropagator(file, engine));
    }

    private final AtomicBoolean rewriting = new AtomicBoolean();
    /** The last rewrite started, which {@link #stop} and {@link #close} stop and wait for. */
    private volatile AofRewriteJob job;

    /** Log size when the last rewrite finished (or at start-up), and the write counter then. */
    private volatile long baseSize;
    private volatile long writtenAtBase;

    /** The size of the log's files now (Redis's aof_current_size). */
    public long currentSize() {
        AofFile f = file;
        return f == null ? 0 : baseSize + f.written() - writtenAtBase;
    }

    /** The size after the last rewrite (Redis's aof_base_size). */
    public long baseSize() {
        return baseSize;
    }

    private void measure() {
        long size = 0;
        try {
            for (AofManifest.Part p : AofManifest.read(manifestPath()).parts()) {
                Path f = dir().resolve(p.file());
                if (Files.exists(f)) {
                    size += Files.size(f);
                }
            }
        } catch (IOException e) {
            Log.warning("Cannot measure the AOF: " + e.getMessage());
        }
        AofFile f = file;
        writtenAtBase = f == null ? 0 : f.written();
        baseSize = size;
    }

    /**
     * auto-aof-rewrite-percentage / auto-aof-rewrite-min-size, checked by the cron: rewrites when the log
     * is above the minimum size and has grown by the percentage since the last rewrite.
     */
    public void autoRewrite() {
        long pct = config.autoAofRewritePercentage.value();
        if (file == null || pct <= 0 || rewriting.get() || outcome.limited()) {
            return;
        }
        long size = currentSize();
        long base = Math.max(1, baseSize);
        if (size > config.autoAofRewriteMinSize.value() && (size - base) * 100 / base >= pct) {
            Log.notice("Starting automatic rewriting of AOF on " + ((size - base) * 100 / base) + "% growth");
            try {
                rewrite();
            } catch (IOException | RuntimeException e) {
                Log.warning("Automatic AOF rewrite failed to start: " + e);
            }
        }
    }

    public boolean rewriting() {
        return rewriting.get();
    }


    /**
     * BGREWRITEAOF: replaces the base and the incremental files by a new base holding the current
     * dataset and a new, empty incremental file. For a moment every stripe of every database is held:
     * a snapshot is armed (copy-on-write per segment, {@link RdbWriter.Snapshot}), a new incremental file is added to the manifest
     * and the log switches to it; writes then resume and the new base is written in the background.
     * Only when it is complete does the manifest drop the old files, so a crash at any point leaves a
     * manifest that replays to the right state. Returns false when a rewrite is already running.
     */
    public boolean rewrite() throws IOException {
        if (!rewriting.compareAndSet(false, true)) {
            return false;
        }
        Keyspace ks = engine.keyspace();
        RdbWriter.Snapshot snap;
        List<byte[]> functions;
        AofManifest.Part newIncr;
        AofManifest before;
        try {
            before = AofManifest.read(manifestPath());
            long seq = 1 + before.incrementals().stream().mapToLong(AofManifest.Part::seq).max().orElse(0);
            newIncr = new AofManifest.Part(config.appendfilename.value() + "." + seq + ".incr.aof", seq, 'i');
            ks.lockAll();
            try {
                snap = new RdbWriter(ValueCodecs.standard()).arm(ks, RdbWriter.Access.NONE);
                functions = this.functions.codes(); // with the keys: changed under every stripe
                try {
                    List<AofManifest.Part> parts = new ArrayList<>(before.parts());
                    parts.add(newIncr);
                    Files.deleteIfExists(dir().resolve(newIncr.file()));
                    new AofManifest(parts).write(manifestPath());
                    file.switchTo(dir().resolve(newIncr.file()));
                } catch (IOException | RuntimeException e) {
                    snap.cancel();
                    throw e;
                }
            } finally {
                ks.unlockAll();
            }
        } catch (IOException | RuntimeException e) {
            rewriting.set(false);
            outcome.notStarted();
            throw e;
        }
        startJob(snap, functions, before, newIncr, null, null, null);
        return true;
    }

    /**
     * BGREWRITEAOF while the log is off (as Redis 7.0): writes a new base of the dataset and a manifest
     * listing only it (a point-in-time snapshot, like every base).
     */
    public boolean rewriteWithoutLog() throws IOException {
        if (!rewriting.compareAndSet(false, true)) {
            return false;
        }
        AofManifest before;
        try {
            Files.createDirectories(dir());
            before = exists() ? AofManifest.read(manifestPath()) : new AofManifest(List.of());
        } catch (IOException | RuntimeException e) {
            rewriting.set(false);
            throw e;
        }
        List<byte[]> functions = this.functions.codes();
        RdbWriter.Snapshot snap = new RdbWriter(ValueCodecs.standard()).snapshot(engine.keyspace(), RdbWriter.Access.NONE);
        startJob(snap, functions, before, null, null, null, null);
        return true;
    }

    public boolean lastWriteOk() {
        return file == null || file.lastWriteOk();
    }

    /** Why the last write or fsync of the log failed (the OS's words). */
    public String lastWriteError() {
        AofFile f = file;
        return f == null ? "" : f.lastWriteError();
    }

    /**
     * CONFIG SET appendonly no: a rewrite in progress is stopped (Redis kills its rewrite child; its base is not
     * used) before the log is closed.
     */
    public void stop() {
        abortRewrite(false);
        closeLog();
    }

    /** Stops a rewrite in progress (logged as Redis logs killing its child); its base is never used. */
    private void abortRewrite(boolean shutdown) {
        AofRewriteJob j = job;
        if (j != null) {
            j.stop(shutdown);
        }
    }

    /**
     * Shutdown: a rewrite in progress is stopped, as Redis's prepareForShutdown kills its rewrite child (under
     * rdb-key-save-delay it would hold the shutdown for as long as it has keys), then pending writes are written
     * and fsynced.
     */
    @Override
    public void close() {
        abortRewrite(true);
        closeLog();
    }

    /** Waits for the (stopped) rewrite thread, which must not write files after the log is closed, then closes the log. */
    private void closeLog() {
        AofRewriteJob j = job;
        Thread t = j == null ? null : j.thread();
        if (t != null && t != Thread.currentThread()) {
            try {
                t.join(60_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (file != null) {
            // replicas still need the stream when the log stops (CONFIG SET appendonly no)
            engine.hooks().propagator(engine.hooks().replicationFeed() != null ? new AofPropagator(null, engine) : null);
            file.close();
            file = null;
        }
    }
}
