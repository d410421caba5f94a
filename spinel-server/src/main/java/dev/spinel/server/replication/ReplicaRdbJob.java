package dev.spinel.server.replication;

import dev.spinel.persistence.RdbFiles;
import dev.spinel.persistence.RdbWriter;
import dev.spinel.server.durability.Persistence;
import dev.spinel.server.log.Log;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The making of one full resync's RDB, already armed, for its replicas: what Redis's BGSAVE child for replication
 * is. While it runs, {@link Persistence} reports a BGSAVE in progress (INFO's {@code rdb_bgsave_in_progress:1};
 * BGSAVE and SAVE answer "Background save already in progress"). Diskless, the RDB is streamed to the replicas
 * as it is written ({@link RdbStreamOut}) and the job lasts the transfer, as Redis's socket child. Disk-style, it
 * is made whole, then sent as {@code $<len>\r\n<rdb>} (INFO's {@code send_bulk}); when {@code save} points are set
 * it is written to {@code dir/dbfilename} as Redis's BGSAVE for replicas (a save like any other: LASTSAVE, the last
 * BGSAVE status) and sent from that file, else made in memory (Redis writes the file anyway; Spinel leaves a
 * server without save points without one). A job that no replica waits for any more is stopped (Redis kills a child
 * whose RDB is of no use), unless it writes the file.
 *
 * <p>Thread-safety: {@link #run} runs on the job's own thread; {@link #linkGone} is called from any replica's event
 * loop; the stop flag is volatile and the snapshot's abort is thread-safe.
 */
final class ReplicaRdbJob implements Runnable {
    private final RdbWriter writer;
    private final RdbWriter.Snapshot snap;
    private final RdbWriter.Options options;
    private final List<ReplicaLink> links;
    private final Persistence persistence;
    private final long dirtyBefore;
    /** Disk-style ({@code $<len>}): the whole RDB is made before it is sent. */
    private final boolean toDisk;
    /** Disk-style with save points set: written to {@code dbfilename}, as Redis's BGSAVE for replicas. */
    private final boolean toFile;
    private volatile boolean stopped;
    private volatile boolean finished;

    ReplicaRdbJob(RdbWriter writer, RdbWriter.Snapshot snap, RdbWriter.Options options, List<ReplicaLink> links,
                  Persistence persistence, long dirtyBefore) {
        this.writer = writer;
        this.snap = snap;
        this.options = options;
        this.links = links;
        this.persistence = persistence;
        this.dirtyBefore = dirtyBefore;
        this.toDisk = !links.getFirst().diskless();
        this.toFile = toDisk && snap != null && persistence.savePointsSet();
        for (ReplicaLink l : links) {
            l.rdbJob(this);
        }
    }

    /** Starts the job's thread; the server shows a BGSAVE in progress from now on. */
    void start() {
        persistence.replicaSaveStarted();
        Thread t = new Thread(this, "spinel-repl-rdb");
        t.setDaemon(true);
        t.start();
    }

    /** A replica of this job is gone: the RDB is stopped once none is left, unless saved to a file Redis would keep. */
    void linkGone() {
        if (finished || stopped) {
            return;
        }
        for (ReplicaLink l : links) {
            if (!l.dropped()) {
                return;
            }
        }
        if (toFile) {
            return; // Redis keeps a BGSAVE child whose file the save points want
        }
        stopped = true;
        Log.notice("Background RDB for replicas stopped: no replica waits for it any more");
        if (snap != null) {
            snap.abort("no replica waits for this RDB any more");
        }
    }

    @Override
    public void run() {
        boolean ok = false;
        try {
            if (toDisk) {
                writeThenSend();
                return;
            }
            for (ReplicaLink link : links) {
                link.rdbStreamStart();
            }
            RdbStreamOut out = new RdbStreamOut(links);
            long keys = write(out);
            long size = out.finish();
            for (ReplicaLink link : links) {
                link.rdbStreamEnd();
            }
            ok = true;
            Log.notice("Full resync for " + links.size() + " replica(s): RDB of " + keys + " keys, " + size + " bytes streamed");
        } catch (IOException | RuntimeException e) {
            dropAll("the RDB for its full resync failed: " + e.getMessage());
        } finally {
            if (!toDisk) {
                finished = true;
                persistence.replicaSaveEnded(false, ok, stopped, dirtyBefore);
            }
        }
    }

    /**
     * Disk-style: the whole RDB first (the job's BGSAVE part: to {@code dbfilename} when save points are set, else in
     * memory), then its bytes to every replica still there.
     */
    private void writeThenSend() {
        Path path = persistence.rdbPath();
        InputStream rdb = null;
        long size = 0;
        boolean ok = false;
        try {
            long keys;
            if (toFile) {
                keys = RdbFiles.save(snap, path, options);
                FileChannel f = FileChannel.open(path, StandardOpenOption.READ); // opened before the save ends: no BGSAVE replaces it first
                size = f.size();
                rdb = Channels.newInputStream(f);
            } else {
                ByteArrayOutputStream bytes = new ByteArrayOutputStream(1 << 16);
                keys = write(bytes);
                size = bytes.size();
                rdb = new ByteArrayInputStream(bytes.toByteArray());
            }
            ok = true;
            Log.notice("Full resync for " + links.size() + " replica(s): RDB of " + keys + " keys, " + size + " bytes"
                    + (toFile ? " saved on disk" : ""));
        } catch (IOException | RuntimeException e) {
            if (!stopped) {
                Log.warning("Background saving error (RDB for replicas): " + e.getMessage());
            }
        } finally {
            finished = true;
            persistence.replicaSaveEnded(toFile, ok, stopped, dirtyBefore);
        }
        if (rdb == null) {
            dropAll("the RDB for its full resync failed");
            return;
        }
        try (InputStream in = rdb) {
            List<ReplicaLink> live = new ArrayList<>();
            for (ReplicaLink l : links) {
                if (!l.dropped()) {
                    live.add(l);
                }
            }
            if (live.isEmpty()) {
                return;
            }
            for (ReplicaLink l : live) {
                l.rdbBulkStart(size);
            }
            RdbStreamOut out = new RdbStreamOut(live);
            in.transferTo(out);
            out.finish();
            for (ReplicaLink l : live) {
                l.rdbBulkEnd();
            }
        } catch (IOException | RuntimeException e) {
            dropAll("sending the RDB of its full resync failed: " + e.getMessage());
        }
    }

    /** The snapshot's RDB, or with no snapshot (REPLCONF rdb-filter-only without the keys) the header, functions and footer. */
    private long write(OutputStream out) {
        if (snap == null) {
            RdbWriter.writeWithoutKeys(out, options);
            return 0;
        }
        return writer.write(snap, out, options);
    }

    private void dropAll(String why) {
        for (ReplicaLink link : links) {
            link.drop(why);
        }
    }
}
