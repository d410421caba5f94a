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
    /**
     * Longs per slot: 64 bytes, so two loops never write the same cache line. Slot {@code s} is at
     * {@code (s + 1) * STRIDE}, and a stride more follows the last: no slot shares a line with the array's header or
     * with the objects allocated next to it (this counter's own fields, the next counter's), which every loop reads
     * on each add. Without that margin one loop's store to its slot made the other loop's next read of the
     * counter's {@code cells} field miss.
     */
    private static final int STRIDE = 8;
    private static final VarHandle CELL = MethodHandles.arrayElementVarHandle(long[].class);
    private static final AtomicInteger NEXT_SLOT = new AtomicInteger();

    private final long[] cells = new long[(SLOTS + 2) * STRIDE];
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
                int i = index(slot);
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
        for (int slot = 0; slot < SLOTS; slot++) {
            total += (long) CELL.getOpaque(cells, index(slot));
        }
        return total;
    }

    /** Where {@code slot}'s long is in {@link #cells}. */
    static int index(int slot) {
        return (slot + 1) * STRIDE;
    }

    /** For tests: the length of {@link #cells}. */
    int cellCount() {
        return cells.length;
    }
}
