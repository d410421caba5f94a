package dev.spinel.persistence;

import dev.spinel.store.Keyspace;

import java.io.BufferedInputStream;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongConsumer;

/**
 * Saving and loading RDB files on disk. A save writes {@code temp-<pid>.rdb} (Redis's name for its own process's
 * save; {@code temp-<pid>-<n>.rdb} while another save of this process holds that name) in the target's directory, forces it to disk, and renames it over the target (then forces the directory), so a crash
 * leaves either the old file or the new one, never a partial one.
 *
 * <p>Thread-safety: stateless; concurrent saves to the same target must be serialized by the caller.
 */
public final class RdbFiles {
    private static final AtomicLong TEMP = new AtomicLong();
    /** Whether a save writes {@code temp-<pid>.rdb} now. */
    private static final AtomicBoolean PLAIN_TEMP = new AtomicBoolean();

    private RdbFiles() {
    }

    /** Writes the keyspace to {@code target} atomically. Returns the number of keys written. */
    public static long save(Keyspace keyspace, Path target, RdbWriter.Options options) throws IOException {
        return save(os -> new RdbWriter(ValueCodecs.standard()).write(keyspace, os, options), target);
    }

    /** Writes a capture to {@code target} atomically. Returns the number of keys written. */
    public static long save(RdbWriter.Snapshot snapshot, Path target, RdbWriter.Options options) throws IOException {
        return save(os -> new RdbWriter(ValueCodecs.standard()).write(snapshot, os, options), target);
    }

    /**
     * Writes a capture to {@code target} atomically as an AOF base of commands ({@link AofCommandWriter}):
     * {@code timestampSeconds} negative for no #TS annotation. Returns the number of keys written.
     */
    public static long saveCommands(RdbWriter.Snapshot snapshot, Path target, List<byte[]> functions, long timestampSeconds,
                                    int keySaveDelayMicros) throws IOException {
        return save(os -> AofCommandWriter.write(new RdbWriter(ValueCodecs.standard()), snapshot, os, functions, timestampSeconds,
                keySaveDelayMicros), target);
    }

    private interface Body {
        long write(OutputStream os);
    }

    private static long save(Body body, Path target) throws IOException {
        Path dir = target.toAbsolutePath().getParent();
        boolean plain = PLAIN_TEMP.compareAndSet(false, true);
        try {
            return save(body, target, dir, dir.resolve("temp-" + ProcessHandle.current().pid()
                    + (plain ? "" : "-" + TEMP.incrementAndGet()) + ".rdb"));
        } finally {
            if (plain) {
                PLAIN_TEMP.set(false);
            }
        }
    }

    private static long save(Body body, Path target, Path dir, Path temp) throws IOException {
        long keys;
        try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            OutputStream os = Channels.newOutputStream(ch);
            try {
                keys = body.write(os);
            } catch (RdbException e) {
                if (e.getCause() instanceof IOException io) {
                    throw io;
                }
                throw e;
            }
            ch.force(true);
        } catch (IOException | RuntimeException e) {
            Files.deleteIfExists(temp);
            throw e;
        }
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        forceDirectory(dir);
        return keys;
    }

    static void forceDirectory(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            // Some file systems cannot open a directory for fsync; the rename itself is still atomic.
        }
    }

    /**
     * Loads {@code file} into the keyspace. Returns false when the file does not exist (a fresh start);
     * throws {@link RdbException} naming the problem when it exists but cannot be read.
     */
    public static boolean load(Keyspace keyspace, Path file, KeyspaceLoader sink) throws IOException {
        return loadPrefix(keyspace, file, sink, null) >= 0;
    }

    /**
     * As {@link #load(Keyspace, Path, KeyspaceLoader)}, telling {@code bytesRead} (when not null) how many bytes of
     * the file were read so far, once per buffer refill (64 KiB), on the loading thread: INFO's loading progress.
     */
    public static boolean load(Keyspace keyspace, Path file, KeyspaceLoader sink, LongConsumer bytesRead) throws IOException {
        return loadPrefix(keyspace, file, sink, bytesRead) >= 0;
    }

    /**
     * {@link #load}, returning the length of the RDB read (what follows it, in an AOF with an RDB preamble, is
     * commands), or -1 when the file does not exist.
     */
    public static long loadPrefix(Keyspace keyspace, Path file, KeyspaceLoader sink, LongConsumer bytesRead) throws IOException {
        InputStream raw;
        try {
            raw = Files.newInputStream(file);
        } catch (NoSuchFileException e) {
            return -1;
        }
        if (bytesRead != null) {
            raw = new CountingInput(raw, bytesRead);
        }
        try (InputStream in = new BufferedInputStream(raw, 1 << 16)) {
            RdbReader reader = new RdbReader(ValueCodecs.standard(), keyspace.databases());
            reader.read(in, sink);
            return reader.length();
        }
    }

    /** Counts the bytes read through it; the buffered stream above reads it in large chunks, so the count is cheap. */
    private static final class CountingInput extends FilterInputStream {
        private final LongConsumer bytesRead;
        private long count;

        CountingInput(InputStream in, LongConsumer bytesRead) {
            super(in);
            this.bytesRead = bytesRead;
        }

        @Override
        public int read() throws IOException {
            int c = in.read();
            if (c >= 0) {
                bytesRead.accept(++count);
            }
            return c;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = in.read(b, off, len);
            if (n > 0) {
                count += n;
                bytesRead.accept(count);
            }
            return n;
        }
    }
}
