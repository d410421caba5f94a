package dev.spinel.server;

import com.sun.management.HotSpotDiagnosticMXBean;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HeapSizerTest {
    private static final long MB = 1L << 20;

    @Test
    void softLimitIsLiveDataPlusHeadroomWithinTheHeapBounds() {
        assertEquals(HeapSizer.FLOOR, HeapSizer.softMax(0, 16 * MB, 6000 * MB), "an empty heap gets the floor");
        assertEquals(300 * MB, HeapSizer.softMax(0, 300 * MB, 6000 * MB), "never below -Xms");
        assertEquals((long) (800 * MB * HeapSizer.FACTOR) + HeapSizer.HEADROOM, HeapSizer.softMax(800 * MB, 16 * MB, 6000 * MB));
        assertEquals(1000 * MB, HeapSizer.softMax(900 * MB, 16 * MB, 1000 * MB), "never above -Xmx");
    }

    @Test
    void aCollectionSetsTheSoftLimitFromTheHeapInUse() throws InterruptedException {
        HotSpotDiagnosticMXBean flags = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        long before = Long.parseLong(flags.getVMOption("SoftMaxHeapSize").getValue());
        long max = Runtime.getRuntime().maxMemory();
        assertTrue(HeapSizer.install());
        long after = before;
        for (int i = 0; i < 50 && after == before; i++) {
            System.gc();
            Thread.sleep(100); // the notification arrives on the JVM's notification thread
            after = Long.parseLong(flags.getVMOption("SoftMaxHeapSize").getValue());
        }
        // This test JVM holds far less than (max - headroom) / factor after a full collection.
        assertTrue(after < before && after < max && after >= HeapSizer.FLOOR, "SoftMaxHeapSize " + before + " -> " + after);
    }
}
