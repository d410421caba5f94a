package dev.spinel.server.cluster;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The fencing's clock, node timeout 2000 ms (cut off after 1000 ms without contact), ticks every 50 ms. */
class ContactClockTest {
    @Test
    void cutOffOnceTheMajorityIsSilentForHalfTheTimeout() {
        ContactClock c = new ContactClock(0);
        assertFalse(c.cutOff(50, 20, 2000));
        long now = 50;
        for (; now < 1050; now += 50) {
            assertFalse(c.cutOff(now, now - 30, 2000), "at " + now); // the last contact at 30 ms
        }
        assertTrue(c.cutOff(now + 50, Long.MAX_VALUE, 2000));
        assertEquals(1070, c.sinceContact(now + 50));
        assertFalse(c.cutOff(now + 100, 10, 2000)); // heard from the leader again
    }

    @Test
    void aNodeThatDidNotRunIsCutOffWhateverItsRaftServerHeardOnWaking() {
        ContactClock c = new ContactClock(0);
        assertEquals(Long.MAX_VALUE, c.leaseUntilMs()); // none before the first tick
        assertFalse(c.cutOff(50, 10, 2000));
        assertEquals(1040, c.leaseUntilMs()); // the last contact (40) + half the timeout
        // SIGSTOP for 4 s: the first requests after SIGCONT (before any tick) find the lease expired
        assertTrue(4030 > c.leaseUntilMs());
        // on SIGCONT the Raft threads ran first and heard from the new leader 5 ms ago: still cut off
        assertTrue(c.cutOff(4050, 5, 2000));
        assertEquals(4010, c.sinceContact(4050)); // the last contact before the stop
        assertEquals(1040, c.leaseUntilMs());
        // the next tick: in contact (ClusterMode then catches up with the leader before serving again)
        assertFalse(c.cutOff(4100, 20, 2000));
        assertEquals(5080, c.leaseUntilMs());
    }

    @Test
    void theFirstTickJudgesNoGap() {
        ContactClock c = new ContactClock(0);
        assertFalse(c.cutOff(4800, 0, 2000)); // a start that took 4.8 s, the node its own leader
    }

    @Test
    void aLateTickWithinHalfTheTimeoutChangesNothing() {
        ContactClock c = new ContactClock(0);
        assertFalse(c.cutOff(900, 30, 2000));
        assertFalse(c.cutOff(1900, 40, 2000));
    }
}
