package dev.spinel.server.commands.server;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.MemoryUsage;
import java.util.Locale;

/**
 * INFO memory's {@code allocator_*} figures for a JVM, where Redis reports jemalloc's: the JVM is Spinel's allocator.
 * {@code allocated} is what the JVM's memory pools use (heap, with the garbage not yet collected, plus metaspace,
 * code cache and the other non-heap pools), {@code active} what they have committed (the heap's free room is the
 * analogue of jemalloc's partly used pages), {@code resident} the committed memory that is resident, at most the
 * process's RSS. So {@code allocator_frag_ratio} (active / allocated) shows the collector's headroom,
 * {@code rss_overhead_ratio} (RSS / resident) what the JVM holds outside its pools (its code, thread stacks, GC
 * structures, direct buffers), as Redis's definitions split the process's RSS.
 *
 * <p>Thread-safety: immutable; {@link #now} may be called by any thread.
 */
record AllocatorFigures(long allocated, long active, long resident) {
    static AllocatorFigures now(long rss) {
        MemoryMXBean m = ManagementFactory.getMemoryMXBean();
        MemoryUsage heap = m.getHeapMemoryUsage();
        MemoryUsage nonHeap = m.getNonHeapMemoryUsage();
        long allocated = heap.getUsed() + nonHeap.getUsed();
        long active = Math.max(allocated, heap.getCommitted() + nonHeap.getCommitted());
        long resident = rss > 0 ? Math.min(active, rss) : active;
        return new AllocatorFigures(allocated, active, resident);
    }

    /** Redis's ratio format: two decimals, 0 for an empty denominator. */
    static String ratio(long a, long b) {
        return String.format(Locale.ROOT, "%.2f", b == 0 ? 0.0 : a / (double) b);
    }
}
