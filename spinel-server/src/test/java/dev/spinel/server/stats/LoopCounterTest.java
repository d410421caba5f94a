package dev.spinel.server.stats;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Loop threads (plain stores in their slots) and other threads (the adder) add together without losing a count;
 * each slot has a cache line to itself.
 */
class LoopCounterTest {
    private static final int ADDS = 200_000;

    /**
     * A thread that owns a slot, as the RESP front end's event loops do. The slots are given here, not claimed:
     * a counter made by the test is written by the test's threads only, one per slot, which is the contract.
     */
    private static final class Owner extends Thread implements LoopCounter.Owner {
        private final int slot;

        Owner(Runnable r, int slot) {
            super(r);
            this.slot = slot;
        }

        @Override
        public int counterSlot() {
            return slot;
        }
    }

    /**
     * At least 64 bytes between any slot and either end of the array (whatever the array header's size and the
     * array's alignment): no slot shares a line with the header or with a neighbouring object, which the other
     * loops read on every add.
     */
    @Test
    void everySlotIsALineAwayFromTheArraysEnds() {
        int cells = new LoopCounter().cellCount();
        for (int slot = 0; slot < LoopCounter.SLOTS; slot++) {
            int at = LoopCounter.index(slot);
            assertTrue(at * Long.BYTES >= 64, "slot " + slot + " is " + at * Long.BYTES + " bytes after the header");
            assertTrue((cells - at - 1) * Long.BYTES >= 64, "slot " + slot + " is " + (cells - at - 1) * Long.BYTES
                    + " bytes before the array's end");
            if (slot > 0) {
                assertTrue((at - LoopCounter.index(slot - 1)) * Long.BYTES >= 64, "slots " + (slot - 1) + ", " + slot);
            }
        }
    }

    @Test
    void concurrentAddsFromOwnersAndOthersAreAllCounted() throws InterruptedException {
        LoopCounter counter = new LoopCounter();
        Runnable work = () -> {
            for (int i = 0; i < ADDS; i++) {
                counter.add(3);
            }
        };
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < LoopCounter.SLOTS; i++) {
            threads.add(new Owner(work, i));
        }
        threads.add(new Owner(work, -1)); // a loop that found every slot taken: the adder
        threads.add(new Thread(work));
        threads.add(new Thread(work));
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join();
        }
        assertEquals(3L * ADDS * threads.size(), counter.sum());
    }

    @Test
    void resetStartsFromZeroAndCountsWhatFollows() throws InterruptedException {
        LoopCounter counter = new LoopCounter();
        Thread owner = new Owner(() -> counter.add(5), 0);
        owner.start();
        owner.join();
        counter.increment();
        assertEquals(6, counter.sum());
        counter.reset();
        assertEquals(0, counter.sum());
        counter.add(2);
        assertEquals(2, counter.sum());
    }
}
