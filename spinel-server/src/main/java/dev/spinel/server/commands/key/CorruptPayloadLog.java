package dev.spinel.server.commands.key;

import dev.spinel.persistence.Rdb;
import dev.spinel.persistence.RdbException;
import dev.spinel.server.log.Log;

/**
 * The log line of a RESTORE whose payload cannot be decoded, in Redis's words (rdbReportCorruptRDB in a RESTORE
 * context): "Internal error in RDB reading offset 0 ... -> Hash ziplist integrity check failed." for the compact
 * encodings, so that tools and Redis's corrupt-dump tests that look for "integrity check failed" find it; Spinel's
 * own reason (what and where) follows in parentheses.
 *
 * <p>Thread-safety: stateless.
 */
final class CorruptPayloadLog {
    private CorruptPayloadLog() {
    }

    static void log(byte[] payload, RdbException e) {
        String what = payload.length == 0 ? null : Rdb.integrityCheckName(payload[0] & 0xFF);
        Log.warning("Internal error in RDB reading offset 0 -> "
                + (what != null ? what + " integrity check failed. (" + e.getMessage() + ")" : e.getMessage()));
    }
}
