package dev.spinel.server.net;

import dev.spinel.server.engine.clock.CommandChain;
import dev.spinel.server.stats.LoopCounter;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.FastThreadLocalThread;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Makes the RESP front end's event-loop threads: Netty's fast-thread-local threads (its buffer pools'
 * per-thread caches need them) that also own a {@link LoopCounter} slot, so the statistics bumped per
 * command are plain stores on the loops, and a {@link CommandChain} that times the commands of a read batch.
 * It remembers the threads it made, so their CPU time can be read.
 *
 * <p>Thread-safety: as {@link DefaultThreadFactory}, callable from any thread.
 */
final class LoopThreadFactory extends DefaultThreadFactory {
    /** Every thread made, for the metrics endpoint's per-loop CPU time (a loop's thread lives as long as the loop). */
    private final List<Thread> made = new CopyOnWriteArrayList<>();

    LoopThreadFactory(String poolName) {
        super(poolName, true);
    }

    @Override
    protected Thread newThread(Runnable r, String name) {
        Thread t = new LoopThread(threadGroup, r, name, LoopCounter.claimSlot());
        made.add(t);
        return t;
    }

    List<Thread> threads() {
        return made;
    }

    /** An event-loop thread with its counter slot (-1 when every slot is taken) and its command chain. */
    private static final class LoopThread extends FastThreadLocalThread implements LoopCounter.Owner, CommandChain.Owner {
        private final int slot;
        private final CommandChain chain = new CommandChain();

        LoopThread(ThreadGroup group, Runnable r, String name, int slot) {
            super(group, r, name);
            this.slot = slot;
        }

        @Override
        public int counterSlot() {
            return slot;
        }

        @Override
        public CommandChain commandChain() {
            return chain;
        }
    }
}
