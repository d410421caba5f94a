package dev.spinel.client;

import java.util.List;

/**
 * One page of a SCAN, SSCAN, HSCAN or ZSCAN: the cursor to continue from and this page's items (keys,
 * members, field-value pairs or scored members). Iteration is over when {@link #finished()}; an item
 * may appear in more than one page (the server's guarantee, not ours). Immutable if its items are.
 */
public record ScanCursor<T>(String cursor, List<T> items) {
    /** The cursor to start a scan with. */
    public static final String START = "0";

    public boolean finished() {
        return "0".equals(cursor);
    }
}
