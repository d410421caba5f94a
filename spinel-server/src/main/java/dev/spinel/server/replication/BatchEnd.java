package dev.spinel.server.replication;

import dev.spinel.server.log.Log;
import dev.spinel.store.Keyspace;
import java.util.concurrent.locks.Lock;

/**
 * A promotion waits for the closed master link's last batch: the link's thread publishes that batch's
 * offset and applies nothing more once it lets go of the apply lock ({@link StreamApplier}), so the history
 * shifts at the offset of the data the new master holds, and no byte of the old master's stream is applied
 * after the shift.
 *
 * <p>Thread-safety: called with the {@link Replication} monitor held; the monitor is released while waiting
 * (the link's thread may need it under the apply lock, at a sync's end).
 */
final class BatchEnd {
    private static final long WAIT_NANOS = 1_000_000_000L;

    private BatchEnd() {
    }

    /**
     * Takes {@code batch} (true) once the link's thread ends its batch, or gives up (false) after a second,
     * or at once when the caller holds the stripes (EXEC, a script): the batch then waits for them to apply
     * its next command, so it cannot end first.
     */
    static boolean await(Object monitor, Lock batch, Keyspace keyspace) {
        if (keyspace.db(0).segmentAt(0).isHeldByCurrentThread()) {
            return false;
        }
        long deadline = System.nanoTime() + WAIT_NANOS;
        while (!batch.tryLock()) {
            if (System.nanoTime() - deadline > 0) {
                Log.warning("The link to the old master did not end its batch within a second: promoting anyway");
                return false;
            }
            try {
                monitor.wait(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }
}
