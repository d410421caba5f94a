package dev.spinel.store.types;

import dev.spinel.store.KeyHash;

import java.util.Arrays;
import java.util.random.RandomGenerator;

/**
 * A chained hash table from {@code byte[]} to {@code byte[]}: the "hashtable" encoding of a hash.
 * Power-of-two buckets, resized all at once; iterated for HSCAN with Redis's reverse-binary cursor,
 * so that every field present for a whole scan is returned at least once across resizes.
 *
 * <p>Not thread-safe: guarded by the lock of the segment holding the key.
 */
final class BytesMap {
    static final class Node {
        final int hash;
        final byte[] key;
        byte[] value;
        Node next;

        Node(int hash, byte[] key, byte[] value) {
            this.hash = hash;
            this.key = key;
            this.value = value;
        }
    }

    private Node[] table = new Node[8];
    private int size;
    /** Heap bytes of nodes, keys and values, kept current so memoryUsage() is O(1). */
    private long heap;

    private static long cost(byte[] b) {
        return (12 + b.length + 7) & ~7L;
    }

    int size() {
        return size;
    }

    Node find(byte[] buf, int off, int len) {
        int h = KeyHash.hash(buf, off, len);
        for (Node n = table[h & (table.length - 1)]; n != null; n = n.next) {
            if (n.hash == h && n.key.length == len && Arrays.equals(n.key, 0, len, buf, off, off + len)) {
                return n;
            }
        }
        return null;
    }

    /** Stores the pair; returns true when the field is new. */
    boolean put(byte[] key, byte[] value) {
        Node n = find(key, 0, key.length);
        if (n != null) {
            heap += cost(value) - cost(n.value);
            n.value = value;
            return false;
        }
        int h = KeyHash.hash(key, 0, key.length);
        Node e = new Node(h, key, value);
        int b = h & (table.length - 1);
        e.next = table[b];
        table[b] = e;
        heap += 24 + cost(key) + cost(value);
        if (++size > table.length) {
            resize(table.length * 2);
        }
        return true;
    }

    boolean remove(byte[] buf, int off, int len) {
        int h = KeyHash.hash(buf, off, len);
        int b = h & (table.length - 1);
        Node prev = null;
        for (Node n = table[b]; n != null; prev = n, n = n.next) {
            if (n.hash == h && n.key.length == len && Arrays.equals(n.key, 0, len, buf, off, off + len)) {
                if (prev == null) {
                    table[b] = n.next;
                } else {
                    prev.next = n.next;
                }
                size--;
                heap -= 24 + cost(n.key) + cost(n.value);
                if (table.length > 8 && size < table.length / 8) {
                    resize(Math.max(8, Integer.highestOneBit(Math.max(size, 1)) * 2));
                }
                return true;
            }
        }
        return false;
    }

    void forEach(PairVisitor v) {
        for (Node head : table) {
            for (Node n = head; n != null; n = n.next) {
                v.visit(n.key, 0, n.key.length, n.value, 0, n.value.length);
            }
        }
    }

    /** One HSCAN step from {@code cursor}: visits at least {@code count} pairs (whole buckets); returns the next cursor. */
    long scan(long cursor, int count, PairVisitor v) {
        long mask = table.length - 1;
        long c = cursor;
        int seen = 0;
        do {
            for (Node n = table[(int) (c & mask)]; n != null; n = n.next) {
                v.visit(n.key, 0, n.key.length, n.value, 0, n.value.length);
                seen++;
            }
            c |= ~mask;
            c = Long.reverse(c);
            c++;
            c = Long.reverse(c);
        } while (c != 0 && seen < count);
        return c;
    }

    /** A random node (non-empty map): a random non-empty bucket, then a random node in its chain. */
    Node random(RandomGenerator rnd) {
        while (true) {
            Node head = table[rnd.nextInt(table.length)];
            if (head == null) {
                continue;
            }
            int n = 0;
            for (Node e = head; e != null; e = e.next) {
                n++;
            }
            Node e = head;
            for (int pick = rnd.nextInt(n); pick > 0; pick--) {
                e = e.next;
            }
            return e;
        }
    }

    long memoryUsage() {
        return 24 + 16 + 4L * table.length + heap;
    }

    BytesMap copy() {
        BytesMap m = new BytesMap();
        forEach((k, ko, kl, v, vo, vl) -> m.put(Arrays.copyOfRange(k, ko, ko + kl), Arrays.copyOfRange(v, vo, vo + vl)));
        return m;
    }

    private void resize(int capacity) {
        Node[] t = new Node[capacity];
        for (Node head : table) {
            for (Node e = head; e != null; ) {
                Node next = e.next;
                int b = e.hash & (capacity - 1);
                e.next = t[b];
                t[b] = e;
                e = next;
            }
        }
        table = t;
    }
}
