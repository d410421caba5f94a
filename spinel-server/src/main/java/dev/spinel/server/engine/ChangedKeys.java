package dev.spinel.server.engine;

import java.util.function.IntConsumer;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.KeyPositions;

/**
 * The keys a write command changed, as Redis signals them (signalModifiedKey): for WATCH, client-side
 * caching and the other front ends' observer. Stateless and thread-safe.
 */
final class ChangedKeys {
    private ChangedKeys() {
    }

    /** Receives one changed key of one database. */
    @FunctionalInterface
    interface Visitor {
        void changed(int db, byte[] key);
    }

    /**
     * The keys a write command changes, found from Redis's key specs (read-only ones left out), plus the
     * targets of MOVE/COPY ... DB;
     * flushes and swaps change whole databases ({@code -1}: all of them).
     */
    static void visit(Session s, Command cmd, Args args, Visitor key, IntConsumer wholeDb) {
        switch (cmd.name()) {
            case "flushall" -> wholeDb.accept(-1);
            case "flushdb" -> wholeDb.accept(s.dbIndex());
            case "swapdb" -> {
                wholeDb.accept((int) args.parseLong(1));
                wholeDb.accept((int) args.parseLong(2));
            }
            default -> {
                for (int k : writtenKeysOf(cmd, args)) {
                    if (!s.writes().isKeyUnchanged(k)) {
                        key.changed(s.dbIndex(), args.copy(k));
                    }
                }
                if (cmd.name().equals("move")) {
                    key.changed((int) args.parseLong(2), args.copy(1));
                } else if (cmd.name().equals("copy")) {
                    for (int i = 3; i + 1 < args.count(); i++) {
                        if (args.is(i, "DB")) {
                            key.changed((int) args.parseLong(i + 1), args.copy(2));
                        }
                    }
                }
            }
        }
    }

    /** The keys of a write command that it may change (sources read by SINTERSTORE, BITOP... excluded). */
    private static int[] writtenKeysOf(Command cmd, Args args) {
        try {
            return KeyPositions.written(cmd.spec(), args);
        } catch (IllegalArgumentException e) {
            return new int[0];
        }
    }
}
