package dev.spinel.server.durability;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;

/**
 * A file channel that fails writes like a full disk while {@link #full} is set: the first write after
 * the disk fills lands half of its bytes (a short write, as the OS gives), every later one throws
 * "No space left on device". Everything else goes to the real file.
 *
 * <p>Thread-safety: as the wrapped channel; {@link #full} is volatile.
 */
final class FullDiskChannel extends FileChannel {
    static volatile boolean full;
    private static volatile boolean shortWriteDone;

    private final FileChannel file;

    FullDiskChannel(FileChannel file) {
        this.file = file;
    }

    /** Makes the disk full (true) or gives space back (false). */
    static void full(boolean on) {
        shortWriteDone = false;
        full = on;
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
        if (full) {
            if (!shortWriteDone && src.remaining() > 1) {
                shortWriteDone = true;
                ByteBuffer half = src.duplicate();
                half.limit(src.position() + src.remaining() / 2);
                int n = file.write(half);
                src.position(src.position() + n);
                return n;
            }
            throw new IOException("No space left on device");
        }
        return file.write(src);
    }

    @Override
    public void force(boolean metaData) throws IOException {
        file.force(metaData);
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
        return file.read(dst);
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
        return file.read(dsts, offset, length);
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
        long n = 0;
        for (int i = offset; i < offset + length; i++) {
            n += write(srcs[i]);
        }
        return n;
    }

    @Override
    public long position() throws IOException {
        return file.position();
    }

    @Override
    public FileChannel position(long newPosition) throws IOException {
        file.position(newPosition);
        return this;
    }

    @Override
    public long size() throws IOException {
        return file.size();
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
        file.truncate(size);
        return this;
    }

    @Override
    public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
        return file.transferTo(position, count, target);
    }

    @Override
    public long transferFrom(ReadableByteChannel src, long position, long count) throws IOException {
        throw new IOException("not used by the log");
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
        return file.read(dst, position);
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
        throw new IOException("not used by the log");
    }

    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
        return file.map(mode, position, size);
    }

    @Override
    public FileLock lock(long position, long size, boolean shared) throws IOException {
        return file.lock(position, size, shared);
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) throws IOException {
        return file.tryLock(position, size, shared);
    }

    @Override
    protected void implCloseChannel() throws IOException {
        file.close();
    }
}
