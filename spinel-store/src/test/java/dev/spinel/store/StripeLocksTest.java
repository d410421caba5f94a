package dev.spinel.store;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

class StripeLocksTest {
    private static byte[] key(int i) {
        return ("k" + i).getBytes(StandardCharsets.US_ASCII);
    }

    /** Few keys (duplicates dropped as added) and many (dropped after the sort): each stripe locked exactly once. */
    @Test
    void locksEachStripeOnceWhateverTheDuplicates() {
        Keyspace ks = new Keyspace(2);
        for (int n : new int[] {1, 3, 8, 9, 64, 500}) {
            StripeLocks locks = new StripeLocks();
            Set<Segment> distinct = new LinkedHashSet<>();
            for (int round = 0; round < 3; round++) { // every key three times, interleaved
                for (int i = 0; i < n; i++) {
                    Database db = ks.db(i % 2);
                    Segment s = db.segment(KeyHash.hash(key(i)));
                    distinct.add(s);
                    locks.add(db, key(i), 0, key(i).length);
                }
            }
            locks.lock();
            for (Segment s : distinct) {
                assertEquals(1, s.lock.getHoldCount(), n + " keys");
            }
            locks.unlock();
            for (Segment s : distinct) {
                assertEquals(0, s.lock.getHoldCount(), n + " keys");
            }
        }
    }
}
