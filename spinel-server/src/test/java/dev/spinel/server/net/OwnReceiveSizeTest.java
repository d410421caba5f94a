package dev.spinel.server.net;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The per-connection query-buffer figure's rule ({@link OwnReceiveSize}), read by read. */
class OwnReceiveSizeTest {
    private static int after(int state, int... reads) {
        for (int n : reads) {
            state = OwnReceiveSize.next(state, n, 65536);
        }
        return state;
    }

    @Test
    void smallRequestsKeepSixteenKiB() {
        assertEquals(16384, OwnReceiveSize.bytes(after(OwnReceiveSize.INITIAL, 20, 40, 30, 25)));
    }

    @Test
    void fullReadsGrowItToSixtyFourKiB() {
        assertEquals(65536, OwnReceiveSize.bytes(after(OwnReceiveSize.INITIAL, 16384, 32768, 65536, 65536)));
    }

    @Test
    void theTailOfALargeRequestAloneDoesNotShrinkIt() {
        // a 400 KB request: full reads, then its last 6,000 bytes
        assertEquals(65536, OwnReceiveSize.bytes(after(OwnReceiveSize.INITIAL, 65536, 65536, 65536, 65536, 6000)));
    }

    @Test
    void twoSmallReadsInARowHalveItDownToSixteenKiB() {
        int grown = after(OwnReceiveSize.INITIAL, 65536, 65536, 65536);
        assertEquals(32768, OwnReceiveSize.bytes(after(grown, 100, 100)));
        assertEquals(16384, OwnReceiveSize.bytes(after(grown, 100, 100, 100, 100, 100, 100)));
    }

    @Test
    void aReadThatFillsTheLoopsSmallerOfferGrowsIt() {
        assertEquals(32768, OwnReceiveSize.bytes(OwnReceiveSize.next(OwnReceiveSize.INITIAL, 4096, 4096)));
    }
}
