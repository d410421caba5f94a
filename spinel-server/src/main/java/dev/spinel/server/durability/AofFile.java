package dev.spinel.server.durability;

import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.log.Log;
import dev.spinel.server.stats.DurationTotal;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The incremental AOF file being appended to, with group commit. Event loops {@link #append} encoded
 * commands into a shared buffer and get back a log position. Under {@code appendfsync always} one writer
 * thread moves everything pending to the file in one write and one fsync, then releases the replies
 * waiting for those positions ({@link #whenAcknowledged}). Under {@code everysec} and {@code no} an event
 * loop writes what is pending itself at the end of its batch ({@link #writeNow}), as Redis writes its AOF
 * buffer before replying: handing each batch to the writer thread and back cost two thread wake-ups per
 * batch (a tenth of the loops' time went to futex calls, profiled under redis-benchmark SET -P 16). The
 * writer thread then only writes what no loop did (a loop lost the race for {@link #writing}, a write
 * failed and is retried, or the append came from no connection: expiry, gRPC), within
 * {@link #WRITER_PERIOD_MS}. Under {@code everysec} a second thread fsyncs once a second, concurrently
 * with the writes, so no event loop ever waits on fsync; under {@code no} the OS decides.
 *
 * <p>A position is "acknowledged" when fsynced (always) or written to the OS (everysec, no: as
 * Redis, which writes before it replies and fsyncs later).
 *
 * <p>Thread-safety: {@link #append}, {@link #writeNow} and {@link #whenAcknowledged} from any thread; the
 * buffer, the SELECT state and the waiter list are guarded by {@link #lock}; one thread at a time writes
 * to the file, holding {@link #writing} (taken before {@link #lock}, never the other way round);
 * positions are volatile.
 */
final class AofFile implements AutoCloseable {
    private static final byte[] MULTI = "*1\r\n$5\r\nMULTI\r\n".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] EXEC = "*1\r\n$4\r\nEXEC\r\n".getBytes(StandardCharsets.US_ASCII);

    private final ServerConfig config;
    private final AofTimeAnnotation annotation;
    /** Where each fsync's duration goes (one per second under everysec, one per batch under always). */
    private final DurationTotal fsyncs;
    private volatile FileChannel channel;
    private volatile Path path;
    private final Object lock = new Object();
    /** Held by whoever moves pending bytes to the file (the writer thread or an event loop): log order is buffer order. */
    private final ReentrantLock writing = new ReentrantLock();
    /** The buffer {@link #pending} becomes at the next write: the two take turns. Guarded by {@link #writing}. */
    private byte[] spare = new byte[1 << 16];
    /**
     * How often the writer thread looks for bytes no event loop wrote, under everysec and no (appends
     * do not wake it then: that wake-up per batch is what loop writes avoid).
     */
    static final long WRITER_PERIOD_MS = 10;
    private byte[] pending = new byte[1 << 16];
    private int pendingLen;
    private long appended;
    private int lastDb = -1;
    private final List<Waiter> waiters = new ArrayList<>();
    private volatile long written;
    private volatile long synced;
    private volatile boolean closed;
    private final AofWriteHealth health = new AofWriteHealth();
    private final Thread writer;
    private final Thread fsyncer;

    /** The end of every file closed: a new file's positions go on from it (a client's older position is never ahead). */
    private static final AtomicLong POSITIONS_END = new AtomicLong();

    private record Waiter(long position, Runnable task) {
    }

    /** Opens a log file for appending. */
    @FunctionalInterface
    interface Opener {
        FileChannel open(Path path) throws IOException;
    }

    /**
     * How log files are opened. A seam for tests only: they put a channel in front of the file that
     * fails like a full disk. Production code never changes it.
     */
    static volatile Opener opener = AofFile::openForAppend;

    /** The real opener: the file on disk, created if absent, appended to. */
    static FileChannel openForAppend(Path p) throws IOException {
        return FileChannel.open(p, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
    }

    AofFile(ServerConfig config, Path path, DurationTotal fsyncs) throws IOException {
        this.config = config;
        this.annotation = new AofTimeAnnotation(config);
        this.fsyncs = fsyncs;
        this.path = path;
        this.channel = opener.open(path);
        written = synced = appended = POSITIONS_END.get();
        writer = new Thread(this::writeLoop, "spinel-aof-write");
        writer.setDaemon(true);
        writer.start();
        fsyncer = new Thread(this::fsyncLoop, "spinel-aof-fsync");
        fsyncer.setDaemon(true);
        fsyncer.start();
    }

    /** The position written to the log files (bytes, counted from where the previous log file of the process ended). */
    long written() {
        return written;
    }

    Path path() {
        return path;
    }

    boolean lastWriteOk() {
        return health.ok();
    }

    String lastWriteError() {
        return health.error();
    }

    private boolean always() {
        return config.appendfsync.value().equals("always");
    }

    boolean acknowledged(long position) {
        return (always() ? synced : written) >= position;
    }

    /** Appends one command logged in database {@code db}; returns its end position. */
    long append(int db, byte[] cmd, int off, int len) {
        synchronized (lock) {
            annotateTimeIfNeeded();
            selectIfNeeded(db);
            put(cmd, off, len);
            wakeWriterIfAlways();
            return appended;
        }
    }

    /** Appends a transaction's commands, wrapped in MULTI/EXEC when {@code wrap} (when there is more than one). */
    long appendTransaction(List<int[]> dbs, List<byte[]> cmds, boolean wrap) {
        synchronized (lock) {
            annotateTimeIfNeeded();
            for (int i = 0; i < cmds.size(); i++) {
                selectIfNeeded(dbs.get(i)[0]);
                if (wrap && i == 0) {
                    put(MULTI, 0, MULTI.length);
                }
                put(cmds.get(i), 0, cmds.get(i).length);
            }
            if (wrap) {
                put(EXEC, 0, EXEC.length);
            }
            wakeWriterIfAlways();
            return appended;
        }
    }

    /** Under always the writer thread fsyncs every batch; otherwise the loops write (see the class comment). Holds {@link #lock}. */
    private void wakeWriterIfAlways() {
        if (always()) {
            lock.notifyAll();
        }
    }

    /** A "#TS:" line first when aof-timestamp-enabled and a new second began. Holds {@link #lock}. */
    private void annotateTimeIfNeeded() {
        byte[] ts = annotation.lineIfNewSecond();
        if (ts != null) {
            put(ts, 0, ts.length);
        }
    }

    private void selectIfNeeded(int db) {
        if (db != lastDb) {
            String n = Integer.toString(db);
            byte[] sel = ("*2\r\n$6\r\nSELECT\r\n$" + n.length() + "\r\n" + n + "\r\n").getBytes(StandardCharsets.US_ASCII);
            put(sel, 0, sel.length);
            lastDb = db;
        }
    }

    private void put(byte[] b, int off, int len) {
        if (pendingLen + len > pending.length) {
            pending = Arrays.copyOf(pending, Math.max(pending.length * 2, pendingLen + len));
        }
        System.arraycopy(b, off, pending, pendingLen, len);
        pendingLen += len;
        appended += len;
    }

    void whenAcknowledged(long position, Runnable task) {
        synchronized (lock) {
            if (!acknowledged(position)) {
                waiters.add(new Waiter(position, task));
                lock.notifyAll();
                return;
            }
        }
        task.run();
    }

    /**
     * Writes everything pending on the calling thread if that acknowledges {@code position}: not under
     * always (the writer thread batches the fsyncs), not while the last write failed (the writer thread
     * retries, with pauses an event loop must not take), not while another thread writes. Bytes a failed
     * write did not take go back to the front of the buffer, in order.
     */
    boolean writeNow(long position) {
        if (acknowledged(position)) {
            return true;
        }
        if (always() || !health.ok() || closed || !writing.tryLock()) {
            return false;
        }
        try {
            byte[] buf;
            int len;
            long end;
            synchronized (lock) {
                if (pendingLen == 0) {
                    return acknowledged(position);
                }
                buf = pending;
                len = pendingLen;
                end = appended;
                pending = spare;
                pendingLen = 0;
            }
            spare = reusable(buf);
            ByteBuffer bb = ByteBuffer.wrap(buf, 0, len);
            AofTimeAnnotation.flushSleep(config);
            try {
                while (bb.hasRemaining()) {
                    channel.write(bb);
                }
            } catch (IOException e) {
                health.failed("writing to", path, e);
                synchronized (lock) { // what was not written goes first, before what was appended meanwhile
                    byte[] rest = Arrays.copyOfRange(buf, bb.position(), len);
                    byte[] merged = new byte[Math.max(pending.length, rest.length + pendingLen)];
                    System.arraycopy(rest, 0, merged, 0, rest.length);
                    System.arraycopy(pending, 0, merged, rest.length, pendingLen);
                    pending = merged;
                    pendingLen += rest.length;
                    lock.notifyAll(); // the writer thread retries
                }
                return false;
            }
            written = end;
        } finally {
            writing.unlock();
        }
        release();
        return acknowledged(position);
    }

    /** A written buffer back as the next spare, unless a burst made it huge. */
    private static byte[] reusable(byte[] buf) {
        return buf.length <= 1 << 20 ? buf : new byte[1 << 16];
    }

    private void writeLoop() {
        long writtenBefore = written;
        while (true) {
            synchronized (lock) {
                try {
                    if (always()) {
                        while (pendingLen == 0 && !closed) {
                            lock.wait(); // appends wake it
                        }
                    } else if (!closed) {
                        lock.wait(WRITER_PERIOD_MS); // loops write; see the class comment
                    }
                } catch (InterruptedException e) {
                    return;
                }
                if (pendingLen == 0) {
                    if (closed) {
                        return; // closed and drained
                    }
                    continue;
                }
                boolean loopsWrote = written != writtenBefore;
                writtenBefore = written;
                if (loopsWrote && waiters.isEmpty() && !always() && !closed) {
                    continue; // the loops keep up; what they have pending now they write at the end of their batch
                }
            }
            writing.lock();
            byte[] buf;
            int len;
            long end;
            try {
                synchronized (lock) {
                    if (pendingLen == 0) {
                        continue; // a loop wrote it meanwhile
                    }
                    buf = pending;
                    len = pendingLen;
                    end = appended;
                    pending = spare;
                    pendingLen = 0;
                }
                writeFully(buf, len);
                written = end;
                writtenBefore = end;
                spare = reusable(buf);
            } finally {
                writing.unlock();
            }
            if (always()) {
                // Replies under `always` wait for the fsync: retry until it succeeds (MISCONF meanwhile).
                while (!sync(end) && !closed) {
                    try {
                        Thread.sleep(1000);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }
            release();
        }
    }

    private void writeFully(byte[] buf, int len) {
        AofTimeAnnotation.flushSleep(config);
        ByteBuffer bb = ByteBuffer.wrap(buf, 0, len);
        while (bb.hasRemaining()) {
            try {
                channel.write(bb);
                health.recovered();
            } catch (IOException e) {
                // Replies stay withheld while the log cannot be written; retry, as Redis does.
                health.failed("writing to", path, e);
                if (closed) {
                    return;
                }
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException ie) {
                    return;
                }
            }
        }
    }

    /** fsyncs the file; false (and writes refused with MISCONF) when the OS reports an error. */
    private boolean sync(long upTo) {
        try {
            long start = System.nanoTime();
            channel.force(false);
            fsyncs.record(System.nanoTime() - start);
            if (upTo > synced) {
                synced = upTo;
            }
            health.recovered();
            return true;
        } catch (ClosedChannelException e) {
            return true; // switched to a new file meanwhile; the switch fsynced the old one
        } catch (IOException e) {
            health.failed("fsyncing", path, e);
            return false;
        }
    }

    private void release() {
        List<Runnable> ready = new ArrayList<>();
        synchronized (lock) {
            lock.notifyAll(); // a file switch may be waiting for the buffer to drain
            waiters.removeIf(w -> {
                if (acknowledged(w.position())) {
                    ready.add(w.task());
                    return true;
                }
                return false;
            });
        }
        for (Runnable r : ready) {
            try {
                r.run();
            } catch (RuntimeException e) {
                Log.warning("AOF waiter failed: " + e);
            }
        }
    }

    private void fsyncLoop() {
        while (!closed) {
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                return;
            }
            if (config.appendfsync.value().equals("everysec")) {
                long w = written;
                if (w > synced) {
                    sync(w);
                }
            }
        }
    }

    /** The log's temporary first file was renamed (the rewrite that started the log is complete). */
    void renamedTo(Path p) {
        synchronized (lock) {
            path = p;
        }
    }

    /**
     * Continues the log in {@code next} (an AOF rewrite). The caller holds every stripe, so no append
     * can arrive; this waits until everything appended is written, fsyncs the old file, and switches.
     * The new file starts with a SELECT, as Redis's does.
     */
    void switchTo(Path next) throws IOException {
        FileChannel ch = opener.open(next);
        long deadline = System.currentTimeMillis() + 10_000;
        synchronized (lock) {
            while (pendingLen > 0 || written < appended) {
                if (System.currentTimeMillis() > deadline) {
                    ch.close(); // the log cannot be written (disk error): do not hold every stripe forever
                    throw new IOException("the AOF could not be written within 10 seconds");
                }
                try {
                    lock.wait(100);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    ch.close();
                    throw new IOException("interrupted while switching AOF files");
                }
            }
            FileChannel old = channel;
            old.force(false);
            synced = Math.max(synced, written);
            channel = ch;
            path = next;
            lastDb = -1;
            old.close();
        }
    }

    /**
     * Waits until everything appended so far is in the file (not necessarily fsynced: DEBUG LOADAOF reads
     * it back through the OS), for at most {@code millis}; false if it is not by then (a failing disk).
     */
    boolean drain(long millis) {
        long target;
        synchronized (lock) {
            target = appended;
        }
        long deadline = System.currentTimeMillis() + millis;
        while (written < target) {
            if (closed || System.currentTimeMillis() > deadline) {
                return false;
            }
            if (!writeNow(target)) {
                try {
                    Thread.sleep(1); // the writer thread has it (appendfsync always, or a retry after a failure)
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
        }
        return true;
    }

    /** Writes what is pending, fsyncs, and stops the threads. */
    @Override
    public void close() {
        synchronized (lock) {
            POSITIONS_END.accumulateAndGet(appended, Math::max);
            closed = true;
            lock.notifyAll();
        }
        try {
            writer.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        fsyncer.interrupt();
        sync(written);
        release();
        try {
            channel.close();
        } catch (IOException e) {
            Log.warning("Error closing the AOF file: " + e.getMessage());
        }
    }
}
