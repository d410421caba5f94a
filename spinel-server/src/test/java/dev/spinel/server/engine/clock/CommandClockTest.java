package dev.spinel.server.engine.clock;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The derived command time must be the wall clock (to the millisecond), across re-anchoring. */
class CommandClockTest {

    @Test
    void derivedMillisMatchTheWallClock() throws InterruptedException {
        CommandClock clock = new CommandClock();
        for (int i = 0; i < 50; i++) {
            long before = System.currentTimeMillis();
            long derived = clock.millis(System.nanoTime());
            long after = System.currentTimeMillis();
            assertTrue(derived >= before - 1 && derived <= after + 1,
                    "derived " + derived + " not within [" + before + ", " + after + "]");
            if (i % 10 == 0) {
                Thread.sleep(3); // past the re-anchoring interval
            }
        }
    }

    @Test
    void anOldNanoReadingStillGivesAPlausibleTime() {
        CommandClock clock = new CommandClock();
        long now = System.currentTimeMillis();
        // a reading from before the anchor (negative elapsed) re-anchors instead of going back in time
        long derived = clock.millis(System.nanoTime() - 5_000_000_000L);
        assertTrue(Math.abs(derived - now) < 1000, "derived " + derived + " vs " + now);
    }
}
