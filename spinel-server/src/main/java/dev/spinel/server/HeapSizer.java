package dev.spinel.server;

import dev.spinel.server.log.Log;

import com.sun.management.GarbageCollectionNotificationInfo;
import com.sun.management.HotSpotDiagnosticMXBean;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * Keeps the Java heap close to the live data, as Redis's RSS follows its data. After every collection it
 * sets the JVM's manageable flag {@code SoftMaxHeapSize} to {@link #softMax} of the heap used after that
 * collection. ZGC starts its cycles early enough to stay under the soft limit and, with a small {@code -Xms}
 * and {@code -XX:ZUncommitDelay}, returns the memory it no longer needs to the OS. Without it ZGC's soft
 * limit is the maximum heap (a quarter of the machine's RAM), so the garbage made between cycles piles up in
 * the RSS: measured in docs/benchmarks.md ("JVM memory"). The limit is soft: an allocation burst may go past
 * it up to {@code -Xmx}, no allocation fails because of it.
 *
 * <p>Only the standalone server installs it ({@link Main}): a server embedded in another application leaves
 * its host's JVM flags alone. Collectors that ignore the flag (G1, Serial, Parallel in JDK 25) are unaffected.
 *
 * <p>Thread-safety: the JVM delivers the notifications on its one notification thread; the only state is
 * written there.
 */
final class HeapSizer implements NotificationListener {
    /** Headroom over the live data, proportional (Redis's allocator needs ~10 % over its data too)... */
    static final double FACTOR = 1.1;
    /**
     * ...and fixed: ZGC keeps part of the soft limit in reserve for relocation and collects back to back when
     * the rest is nearly used (its log showed "High Usage" collections at 24 MB used of a 48 MB limit), so the
     * fixed part is that reserve plus a few seconds of a busy server's allocation. With 24 MB here the pipelined load ran ~700 minor collections in 15 s at half the
     * throughput; with 64 MB about 50 (-6 %); with 96 MB eight, at the throughput of a fixed limit.
     */
    static final long HEADROOM = 96L << 20;
    /** The smallest soft limit, for an almost empty server. */
    static final long FLOOR = 128L << 20;
    /** A new limit within this of the current one is not worth a flag write. */
    private static final long STEP = 4L << 20;

    private final HotSpotDiagnosticMXBean flags;
    private final Set<String> heapPools;
    private final long minHeap;
    private final long maxHeap;
    private long current = -1;

    private HeapSizer(HotSpotDiagnosticMXBean flags, Set<String> heapPools, long minHeap, long maxHeap) {
        this.flags = flags;
        this.heapPools = heapPools;
        this.minHeap = minHeap;
        this.maxHeap = maxHeap;
    }

    /** The soft heap limit for this much heap in use after a collection, within [minHeap, maxHeap]. */
    static long softMax(long usedAfterGc, long minHeap, long maxHeap) {
        long wanted = Math.max(Math.max(FLOOR, minHeap), (long) (usedAfterGc * FACTOR) + HEADROOM);
        return Math.min(wanted, maxHeap);
    }

    /** Listens to every collector of this JVM; returns false (and does nothing) when the flag is not writable. */
    static boolean install() {
        HotSpotDiagnosticMXBean flags = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        if (flags == null || !flags.getVMOption("SoftMaxHeapSize").isWriteable()) {
            return false;
        }
        Set<String> heapPools = new HashSet<>();
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                heapPools.add(pool.getName());
            }
        }
        long minHeap = Long.parseLong(flags.getVMOption("MinHeapSize").getValue());
        HeapSizer sizer = new HeapSizer(flags, heapPools, minHeap, Runtime.getRuntime().maxMemory());
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc instanceof NotificationEmitter emitter) {
                emitter.addNotificationListener(sizer, null, null);
            }
        }
        return true;
    }

    @Override
    public void handleNotification(Notification n, Object handback) {
        if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) {
            return;
        }
        var info = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
        long used = 0;
        for (Map.Entry<String, MemoryUsage> pool : info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
            if (heapPools.contains(pool.getKey())) { // the map also holds Metaspace and the code heaps
                used += pool.getValue().getUsed();
            }
        }
        long limit = softMax(used, minHeap, maxHeap);
        if (Math.abs(limit - current) >= STEP) {
            current = limit; // also when refused: one warning per new value, not one per collection
            try {
                flags.setVMOption("SoftMaxHeapSize", Long.toString(limit));
            } catch (IllegalArgumentException e) { // a value the JVM refuses: it keeps its current limit
                Log.warning("SoftMaxHeapSize=" + limit + " refused: " + e.getMessage());
            }
        }
    }
}
