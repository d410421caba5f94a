package dev.spinel.server.durability;

import dev.spinel.server.log.Log;

/**
 * The outcome of the server's AOF rewrites, whichever log ran them: the last status, the count of rewrites done and of
 * consecutive failures (INFO's aof_last_bgrewrite_status, aof_rewrites, aof_rewrites_consecutive_failures), and Redis
 * 7.0's limit on automatic rewrites after repeated failures (aofRewriteLimited): from the third consecutive failure,
 * the cron's rewrites wait 1 minute, then 2, 4, ... up to an hour; BGREWRITEAOF is never held back.
 *
 * <p>Thread-safety: synchronized; read by INFO and the cron, written by the rewrite threads.
 */
final class AofRewrites {
    /** Redis's AOF_REWRITE_LIMITE_THRESHOLD and AOF_REWRITE_LIMITE_MAX_MINUTES. */
    private static final int LIMIT_THRESHOLD = 3;
    private static final int LIMIT_MAX_MINUTES = 60;

    private boolean lastOk = true;
    private long done;
    private long consecutiveFailures;
    private long nextDelayMinutes;
    private long nextRewriteSeconds;

    synchronized void succeeded() {
        lastOk = true;
        done++;
        consecutiveFailures = 0;
    }

    synchronized void failed() {
        lastOk = false;
        consecutiveFailures++;
    }

    /** A rewrite could not even start. */
    synchronized void notStarted() {
        lastOk = false;
    }

    synchronized boolean lastOk() {
        return lastOk;
    }

    synchronized long done() {
        return done;
    }

    synchronized long consecutiveFailures() {
        return consecutiveFailures;
    }

    /** Whether an automatic (or scheduled) rewrite must wait now; the first refusal of each delay is logged. */
    synchronized boolean limited() {
        if (consecutiveFailures < LIMIT_THRESHOLD) {
            nextDelayMinutes = 0;
            nextRewriteSeconds = 0;
            return false;
        }
        long now = System.currentTimeMillis() / 1000;
        if (nextRewriteSeconds != 0) {
            if (now < nextRewriteSeconds) {
                return true;
            }
            nextRewriteSeconds = 0;
            return false;
        }
        nextDelayMinutes = nextDelayMinutes == 0 ? 1 : Math.min(nextDelayMinutes * 2, LIMIT_MAX_MINUTES);
        nextRewriteSeconds = now + nextDelayMinutes * 60;
        Log.warning("Background AOF rewrite has repeatedly failed and triggered the limit, will retry in "
                + nextDelayMinutes + " minutes");
        return true;
    }
}
