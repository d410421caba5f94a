package dev.spinel.store;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StripeLocksTest {
    private static byte[] key(int i) {
        return ("k" + i).getBytes(StandardCharsets.US_ASCII);
    }

    /** Few keys (duplicates dropped as added) and many (dropped after the sort): each stripe locked exactly once. */
    @Test
    void locksEachStripeOnceWhateverTheDuplicates() {
        Keyspace ks = new Keyspace(2);
        for (int n : new int[] {1, 3, 8, 9, 40, 64, 65, 500}) {
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
            List<Segment> held = locks.held();
            assertEquals(distinct.size(), held.size(), n + " keys");
            for (int i = 1; i < held.size(); i++) { // the global order: database, then segment index
                Segment a = held.get(i - 1);
                Segment b = held.get(i);
                assertTrue(a.database().index() < b.database().index()
                        || a.database().index() == b.database().index() && a.index() < b.index(), n + " keys");
            }
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
