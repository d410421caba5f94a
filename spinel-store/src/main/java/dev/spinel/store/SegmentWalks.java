package dev.spinel.store;

import java.util.random.RandomGenerator;

/**
 * The walks over a {@link Segment}'s buckets that are not lookups: a SCAN step with Redis's reverse-binary
 * cursor, a random entry (RANDOMKEY, eviction's samples) and a step of active expiry. Each touches a bucket's
 * chunk for armed snapshots ({@link Segment#touchBucket}) before handing out or changing its entries, as the
 * lookups do.
 *
 * <p>Thread-safety: stateless; every method requires the caller to hold the segment's lock.
 */
final class SegmentWalks {
    private SegmentWalks() {
    }

    /** {@link Segment#scan}: the bucket at {@code cursor} and further ones up to {@code minEntries}; 0 when done. */
    static long scan(Segment s, long cursor, int minEntries, Segment.EntryVisitor visitor) {
        Entry[] t = s.table;
        if (t == null || s.size() == 0) {
            return 0;
        }
        long mask = t.length - 1;
        long v = cursor;
        int seen = 0;
        do {
            s.touchBucket((int) (v & mask));
            for (Entry e = t[(int) (v & mask)]; e != null; e = e.next) {
                visitor.visit(e);
                seen++;
            }
            v |= ~mask;
            v = Long.reverse(v);
            v++;
            v = Long.reverse(v);
        } while (v != 0 && seen < minEntries);
        return v;
    }

    /** {@link Segment#randomEntry}: a uniformly chosen non-empty bucket's random entry, or null when empty. */
    static Entry randomEntry(Segment s, RandomGenerator rnd) {
        Entry[] t = s.table;
        if (t == null || s.size() == 0) {
            return null;
        }
        while (true) {
            int b = rnd.nextInt(t.length);
            Entry head = t[b];
            if (head == null) {
                continue;
            }
            s.touchBucket(b);
            int n = 0;
            for (Entry e = head; e != null; e = e.next) {
                n++;
            }
            int pick = rnd.nextInt(n);
            Entry e = head;
            while (pick-- > 0) {
                e = e.next;
            }
            return e;
        }
    }

    /** {@link Segment#expireStep}: up to {@code maxBuckets} buckets from where the last step stopped. */
    static int expireStep(Segment s, long now, int maxBuckets) {
        Entry[] t = s.table;
        if (t == null || s.volatileCount() == 0) {
            return 0;
        }
        Database owner = s.database();
        int deleted = 0;
        for (int n = 0; n < maxBuckets && s.volatileCount() > 0; n++) {
            if (s.expireCursor >= t.length) {
                s.expireCursor = 0;
            }
            s.touchBucket(s.expireCursor);
            Entry e = t[s.expireCursor];
            while (e != null) {
                Entry next = e.next;
                if (e.isExpired(now) && !owner.expiryDeletesSuspended(now)) {
                    s.removeEntry(e);
                    owner.expired(e);
                    deleted++;
                    if (s.table != t) {
                        return deleted; // resized: the cursor restarts next step
                    }
                }
                e = next;
            }
            s.expireCursor++;
        }
        return deleted;
    }
}
