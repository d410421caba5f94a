package dev.spinel.server.durability;

import dev.spinel.server.log.Log;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Whether the last write or fsync of an append-only log file worked, and the OS's reason when it did not
 * (Redis's aof_last_write_status and strerror text, for MISCONF and INFO). Logs the first failure of a run
 * and the recovery, as Redis does, not every retry.
 *
 * <p>Thread-safety: any thread; the state is two volatile fields written by the log's writer threads.
 */
final class AofWriteHealth {
    private volatile boolean ok = true;
    private volatile String error = "Input/output error";

    boolean ok() {
        return ok;
    }

    /** The OS's reason for the last failed write or fsync, as strerror gives it ("No space left on device"). */
    String error() {
        return error;
    }

    /** A write ({@code doing}: "writing to") or an fsync ("fsyncing") of {@code path} failed: writes are refused with MISCONF. */
    void failed(String doing, Path path, IOException e) {
        if (ok) {
            Log.warning("Error " + doing + " to the AOF file " + path + ": " + e.getMessage());
        }
        String m = e.getMessage();
        error = m == null || m.isBlank() ? "Input/output error" : m;
        ok = false;
    }

    void recovered() {
        if (!ok) {
            ok = true;
            Log.warning("AOF write error looks solved, Redis can write again.");
        }
    }
}
