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
    void aReadingJustBeforeTheAnchorDoesNotReanchor() {
        CommandClock clock = new CommandClock();
        boolean kept = false;
        // a few attempts: a thread descheduled for over a millisecond between anchoring and reading sees it expire
        for (int attempt = 0; attempt < 10 && !kept; attempt++) {
            clock.millis(System.nanoTime() + 2 * CommandClock.REANCHOR_NANOS); // re-anchors, at about now
            long after = System.nanoTime();
            int anchorings = clock.anchorings;
            // what the commands of a run pass: the run's start, older than an anchor taken during the run
            long runStart = after - CommandClock.REANCHOR_NANOS / 2;
            long wall = System.currentTimeMillis();
            for (int i = 0; i < 100; i++) {
                long derived = clock.millis(runStart);
                assertTrue(Math.abs(derived - wall) <= 3, "derived " + derived + " vs " + wall);
            }
            kept = clock.anchorings == anchorings;
        }
        assertTrue(kept, "re-anchored for a reading within the interval before the anchor");
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
