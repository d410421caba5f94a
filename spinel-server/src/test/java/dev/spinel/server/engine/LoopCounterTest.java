package dev.spinel.server.engine;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** Loop threads (plain stores in their slots) and other threads (the adder) add together without losing a count. */
class LoopCounterTest {
    private static final int ADDS = 200_000;

    /** A thread that owns a slot, as the RESP front end's event loops do. */
    private static final class Owner extends Thread implements LoopCounter.Owner {
        private final int slot = LoopCounter.claimSlot();

        Owner(Runnable r) {
            super(r);
        }

        @Override
        public int counterSlot() {
            return slot;
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
        for (int i = 0; i < LoopCounter.SLOTS + 2; i++) { // more owners than slots: the last fall back to the adder
            threads.add(new Owner(work));
        }
        // Slots are claimed for the JVM's life: servers started by earlier tests may have taken them all.
        assumeTrue(((Owner) threads.get(0)).counterSlot() >= 0, "no free slot left in this JVM");
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
        Thread owner = new Owner(() -> counter.add(5));
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
