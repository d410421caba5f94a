package dev.spinel.server.replication;

import java.io.IOException;
import java.io.OutputStream;
import java.util.List;

/**
 * The RDB of a diskless full resync, handed to its replicas' connections as it is written, as Redis's replicas
 * read it from the saving child's pipe: in chunks of a fixed size, each a new array shared by the replicas (never
 * written again), so the whole file is never held in memory. The writer waits while a replica still has more than
 * {@link #MAX_IN_FLIGHT} bytes of it queued or unsent (the slowest replica paces the transfer, as Redis's pipe does);
 * a replica that takes nothing for {@code repl-timeout} seconds is dropped, and once every replica is gone the write
 * stops.
 *
 * <p>Thread-safety: written by the one thread that writes the RDB; the chunks go to each link's event loop.
 */
final class RdbStreamOut extends OutputStream {
    private static final int CHUNK = 256 * 1024;
    private static final long MAX_IN_FLIGHT = 4L << 20;
    private final List<ReplicaLink> links;
    private byte[] buf = new byte[CHUNK];
    private int n;
    private long total;

    RdbStreamOut(List<ReplicaLink> links) {
        this.links = links;
    }

    @Override
    public void write(int b) throws IOException {
        buf[n++] = (byte) b;
        if (n == CHUNK) {
            pass();
        }
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        while (len > 0) {
            int k = Math.min(len, CHUNK - n);
            System.arraycopy(b, off, buf, n, k);
            n += k;
            off += k;
            len -= k;
            if (n == CHUNK) {
                pass();
            }
        }
    }

    /** Hands over the last, partial chunk; returns the RDB's size. */
    long finish() throws IOException {
        if (n > 0) {
            pass();
        }
        return total;
    }

    private void pass() throws IOException {
        byte[] chunk = buf;
        int len = n;
        buf = new byte[CHUNK];
        n = 0;
        total += len;
        boolean anyLeft = false;
        for (ReplicaLink l : links) {
            anyLeft |= l.rdbChunk(chunk, len);
        }
        if (!anyLeft) {
            throw new IOException("every replica of this full resync is gone");
        }
        for (ReplicaLink l : links) {
            long last = Long.MAX_VALUE;
            long since = 0;
            long pending;
            while ((pending = l.rdbInFlight()) > MAX_IN_FLIGHT) {
                long now = System.currentTimeMillis();
                if (pending < last) {
                    last = pending;
                    since = now;
                } else if (now - since > l.timeoutMillis()) { // no progress for repl-timeout: Redis frees it
                    l.fullSyncTimedOut();
                    break;
                }
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted");
                }
            }
        }
    }
}
