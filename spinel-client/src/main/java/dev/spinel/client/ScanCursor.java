package dev.spinel.client;

import java.util.List;

/**
 * One page of a SCAN: the cursor to continue from and the keys of this page. Iteration is over when
 * {@link #finished()}; a key may appear in more than one page (the server's guarantee, not ours).
 * Immutable if its keys are.
 */
public record ScanCursor<K>(String cursor, List<K> keys) {
    /** The cursor to start a scan with. */
    public static final String START = "0";

    public boolean finished() {
        return "0".equals(cursor);
    }
}
