package dev.spinel.store;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A {@link Segment}'s lock with a sequence number, so that a single-key read can run without taking it
 * ({@link OptimisticReads}): the version is odd from the moment a thread first acquires the lock until it
 * releases it for the last time (re-entries leave it alone), and changes on every such hold. A reader that
 * sees the same even version before and after its reads saw a state no holder was changing: the state it
 * would have seen under the lock at that moment.
 *
 * <p>Thread-safety: as {@link ReentrantLock}; {@link #version()} may be read by any thread. Conditions are
 * not supported (an await would release the lock without closing the version).
 */
final class SegmentLock extends ReentrantLock {
    private static final VarHandle VERSION;

    static {
        try {
            VERSION = MethodHandles.lookup().findVarHandle(SegmentLock.class, "version", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** Odd while held; written only by the holder. */
    @SuppressWarnings("unused") // through VERSION
    private long version;

    @Override
    public void lock() {
        super.lock();
        opened();
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        super.lockInterruptibly();
        opened();
    }

    @Override
    public boolean tryLock() {
        if (super.tryLock()) {
            opened();
            return true;
        }
        return false;
    }

    @Override
    public boolean tryLock(long timeout, TimeUnit unit) throws InterruptedException {
        if (super.tryLock(timeout, unit)) {
            opened();
            return true;
        }
        return false;
    }

    @Override
    public void unlock() {
        if (getHoldCount() == 1) {
            // release: every change made under the lock is visible to a reader that sees this version
            VERSION.setRelease(this, (long) VERSION.get(this) + 1);
        }
        super.unlock();
    }

    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("a segment lock has no conditions");
    }

    private void opened() {
        if (getHoldCount() == 1) {
            VERSION.setOpaque(this, (long) VERSION.get(this) + 1);
            VarHandle.storeStoreFence(); // the odd version is visible before any change made under the lock
        }
    }

    /** The version as a reader starts: odd while a thread holds the lock. */
    long version() {
        return (long) VERSION.getAcquire(this);
    }

    /** True when nothing was changed under the lock since {@link #version()} returned {@code v} (an even value). */
    boolean validate(long v) {
        VarHandle.loadLoadFence(); // the reader's loads complete before the version is read again
        return (long) VERSION.getOpaque(this) == v;
    }
}
