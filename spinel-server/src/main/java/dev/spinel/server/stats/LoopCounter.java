package dev.spinel.server.stats;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * A statistics counter bumped on every command (INFO stats and commandstats), cheaper than a
 * {@link LongAdder} where it matters: an event-loop thread ({@link Owner}, given a slot by
 * {@link #claimSlot()}) adds to its own cache line with plain stores, no atomic instruction; every
 * other thread, and loops beyond the slots there are, add to a LongAdder. A GET bumped four adders;
 * their atomic adds were 3.6 % of the loops' time under the pipelined load (docs/performance.md).
 *
 * <p>Thread-safety: {@link #add} from any thread. Each slot has one writer, its owner thread, so a plain
 * read-modify-write loses nothing; {@link #sum} from any thread reads every slot (opaque: each slot's latest
 * or a slightly older value, as INFO's figures may be). {@link #reset} does not write the slots (an owner's
 * store could overwrite a zero): it remembers the sum as the new origin.
 */
public final class LoopCounter {
    /** A thread that owns a slot: Netty's event loops of the RESP front end (see dev.spinel.server.net). */
    public interface Owner {
        /** This thread's slot, from {@link #claimSlot()}: 0 to {@link #SLOTS} - 1, or -1 for none. */
        int counterSlot();
    }

    /** Slots for one loop per core; further loops (and other servers in one JVM) use the adder. */
    static final int SLOTS = Math.max(1, Math.min(64, Runtime.getRuntime().availableProcessors()));
    /** Longs per slot: 64 bytes, so two loops never write the same cache line. */
    private static final int STRIDE = 8;
    private static final VarHandle CELL = MethodHandles.arrayElementVarHandle(long[].class);
    private static final AtomicInteger NEXT_SLOT = new AtomicInteger();

    private final long[] cells = new long[SLOTS * STRIDE];
    private final LongAdder others = new LongAdder();
    private volatile long origin;

    /** A slot for a new event-loop thread (each used by one thread for its whole life), or -1 when all are taken. */
    public static int claimSlot() {
        int slot = NEXT_SLOT.getAndIncrement();
        return slot < SLOTS ? slot : -1;
    }

    public void increment() {
        add(1);
    }

    public void add(long n) {
        if (Thread.currentThread() instanceof Owner owner) {
            int slot = owner.counterSlot();
            if (slot >= 0) {
                int i = slot * STRIDE;
                CELL.setOpaque(cells, i, (long) CELL.getOpaque(cells, i) + n);
                return;
            }
        }
        others.add(n);
    }

    public long sum() {
        return raw() - origin;
    }

    public void reset() {
        origin = raw();
    }

    private long raw() {
        long total = others.sum();
        for (int i = 0; i < cells.length; i += STRIDE) {
            total += (long) CELL.getOpaque(cells, i);
        }
        return total;
    }
}
