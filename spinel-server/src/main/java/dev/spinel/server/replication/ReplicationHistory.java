package dev.spinel.server.replication;

import java.security.SecureRandom;

/**
 * A server's replication history as Redis names it: the replication ID (master_replid), the previous one
 * (master_replid2) and the first offset it no longer covers (second_repl_offset), which a PSYNC may continue.
 *
 * <p>Thread-safety: volatile fields read by any thread (PSYNC, INFO, a save's AUX fields); changed only
 * under the {@link Replication}'s monitor.
 */
final class ReplicationHistory {
    static final String NO_REPLID = "0000000000000000000000000000000000000000";

    private volatile String replid = randomHex();
    private volatile String replid2 = NO_REPLID;
    private volatile long secondOffset = -1;

    static String randomHex() {
        byte[] b = new byte[20];
        new SecureRandom().nextBytes(b);
        StringBuilder sb = new StringBuilder(40);
        for (byte x : b) {
            sb.append(Character.forDigit((x >> 4) & 15, 16)).append(Character.forDigit(x & 15, 16));
        }
        return sb.toString();
    }

    String replid() {
        return replid;
    }

    String replid2() {
        return replid2;
    }

    long secondOffset() {
        return secondOffset;
    }

    /** A history nobody can continue (a master's first backlog, a freed one): a new ID and no previous one. */
    void restart() {
        replid = randomHex();
        replid2 = NO_REPLID;
        secondOffset = -1;
    }

    /** Takes {@code id} as ours, with no previous one (a full resync from a master). */
    void adopt(String id) {
        replid = id;
        replid2 = NO_REPLID;
        secondOffset = -1;
    }

    /** A new ID that continues the current one: it becomes replid2 up to {@code secondOffset} (promotion, +CONTINUE). */
    void shift(String id, long secondOffset) {
        replid2 = replid;
        this.secondOffset = secondOffset;
        replid = id;
    }

    /** Continues {@code id} as ours, the previous ID left as it is (a replica restarted from its RDB). */
    void continueAs(String id) {
        replid = id;
    }

    /** Keeps {@code id} as the previous ID up to {@code secondOffset} (a master restarted from its RDB). */
    void previous(String id, long secondOffset) {
        replid2 = id;
        this.secondOffset = secondOffset;
    }
}
