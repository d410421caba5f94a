package dev.spinel.server.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** Polls a condition until it holds or a deadline passes (then fails the test naming what it waited for). */
public final class Await {
    /** A condition read again on every poll. */
    public interface Check {
        boolean ok() throws Exception;
    }

    private Await() {
    }

    /** Waits up to 60 s (generous: only a failing test waits that long on a loaded machine). */
    public static void waitFor(Check c, String what) throws Exception {
        long end = System.currentTimeMillis() + 60_000;
        while (!c.ok()) {
            assertTrue(System.currentTimeMillis() < end, "timed out waiting for " + what);
            Thread.sleep(20);
        }
    }
}
