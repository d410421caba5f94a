package dev.spinel.store;

import com.sun.management.ThreadMXBean;

import java.lang.management.ManagementFactory;
import java.util.function.IntFunction;

/**
 * Run by {@link EntrySizeTest} in a JVM of its own with the server's layout flags (compact object headers, ZGC's
 * 8-byte references): allocates many entries of each class and prints, per class, the bytes the thread allocated
 * per entry and what {@link Entry#footprint()} claims for it (less the key array, which is allocated beforehand).
 */
final class EntrySizeProbe {
    private static final ThreadMXBean MX = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    private static final int N = 50_000;

    private EntrySizeProbe() {
    }

    public static void main(String[] args) {
        byte[] longKey = new byte[40];
        Object ref = new byte[100];
        for (int keyLen : new int[] {14, 22}) {
            byte[] key = new byte[keyLen];
            for (long at : new long[] {-1, 1234}) {
                probe("ref key=" + keyLen + " ttl=" + (at >= 0), i -> InlineKeyEntry.of(key, 0, keyLen, ref, at), 0);
            }
        }
        for (long at : new long[] {-1, 1234}) {
            probe("array key=40 ttl=" + (at >= 0), i -> ArrayKeyEntry.of(longKey, ref, at), (int) Sizes.array(40));
            for (int vlen = 8; vlen <= InlineStringEntry.MAX_LENGTH; vlen += 8) {
                byte[] value = new byte[vlen];
                probe("string key=14 value=" + vlen + " ttl=" + (at >= 0), i -> InlineKeyEntry.of(longKey, 0, 14, value, at), 0);
            }
            for (int vlen = 8; vlen <= InlineStringEntry.MAX_WIDE_LENGTH; vlen += 8) {
                byte[] value = new byte[vlen];
                probe("string key=22 value=" + vlen + " ttl=" + (at >= 0), i -> InlineKeyEntry.of(longKey, 0, 22, value, at), 0);
            }
        }
    }

    private static void probe(String what, IntFunction<Entry> make, int keyArray) {
        Entry[] kept = new Entry[N];
        kept[0] = make.apply(0); // load and link the class before counting
        long before = MX.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < N; i++) {
            kept[i] = make.apply(i);
        }
        long perEntry = (MX.getCurrentThreadAllocatedBytes() - before) / N;
        System.out.println(what + " class=" + kept[0].getClass().getName() + " allocated=" + perEntry
                + " footprint=" + (kept[N - 1].footprint() - keyArray));
    }
}
