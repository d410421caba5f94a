package dev.spinel.client.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Intrusive multi-producer single-consumer queue of commands (Vyukov's design): producers link a
 * command in with one atomic swap, no node object allocated per offer. The link field lives in
 * {@link Command}, so a command may be in at most one such queue, once.
 *
 * <p>Thread-safety: {@link #offer} from any thread; {@link #poll} only from the single consumer
 * (the connection's event loop).
 */
final class CommandQueue {
    private static final VarHandle TAIL;

    static {
        try {
            TAIL = MethodHandles.lookup().findVarHandle(CommandQueue.class, "tail", Command.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Command<?> stub = new Command<>(v -> null);
    @SuppressWarnings("unused") // accessed through TAIL
    private volatile Command<?> tail = stub;
    private Command<?> head = stub;

    void offer(Command<?> c) {
        Command.NEXT.setRelease(c, (Command<?>) null);
        Command<?> prev = (Command<?>) TAIL.getAndSet(this, c);
        Command.NEXT.setRelease(prev, c);
    }

    /** Next command, or null when empty (or when a producer is between its swap and its link: it will flush again). */
    Command<?> poll() {
        Command<?> h = head;
        Command<?> next = (Command<?>) Command.NEXT.getAcquire(h);
        if (h == stub) {
            if (next == null) {
                return null;
            }
            head = next;
            h = next;
            next = (Command<?>) Command.NEXT.getAcquire(h);
        }
        if (next != null) {
            head = next;
            return h;
        }
        if (h != (Command<?>) TAIL.getVolatile(this)) {
            return null;
        }
        offer(stub);
        next = (Command<?>) Command.NEXT.getAcquire(h);
        if (next != null) {
            head = next;
            return h;
        }
        return null;
    }
}
