package dev.spinel.client.internal;

import dev.spinel.client.ServerErrorException;
import dev.spinel.client.SpinelException;
import dev.spinel.protocol.RespValue;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;

/**
 * One command and its result: the command object is the future (no separate holder per call).
 * Arguments are {@code byte[]}, {@code String} (written as UTF-8), or {@code Long}; they are encoded
 * on the connection's event loop straight into the outgoing buffer.
 *
 * <p>Thread-safety: created by any thread, then owned by the connection's event loop; completion is
 * the {@link CompletableFuture}'s. Completions run on the event loop: callbacks must not block.
 */
public final class Command<T> extends CompletableFuture<T> {
    static final VarHandle NEXT;

    static {
        try {
            NEXT = MethodHandles.lookup().findVarHandle(Command.class, "next", Command.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    final Object[] args;
    final Reply<T> reply;
    /** Link in the connection's submission queue (see {@link CommandQueue}). */
    volatile Command<?> next;
    /** {@link System#nanoTime()} after which the command fails with a timeout; set when the event loop takes it from the submission queue. */
    long deadline;
    /** Extra time a blocking command may legitimately wait on the server. */
    final long extraNanos;
    /** Sent without a reply of its own in the FIFO (pub/sub subscriptions: confirmed by push frames). */
    final boolean oneWay;

    public Command(Reply<T> reply, Object... args) {
        this(reply, 0, false, args);
    }

    /** A command that may wait on the server for {@code extraNanos} beyond the usual timeout (BLPOP...). */
    public static <T> Command<T> blocking(Reply<T> reply, long extraNanos, Object... args) {
        return new Command<>(reply, extraNanos, false, args);
    }

    private Command(Reply<T> reply, long extraNanos, boolean oneWay, Object[] args) {
        this.reply = reply;
        this.args = args;
        this.extraNanos = extraNanos;
        this.oneWay = oneWay;
    }

    /** A command whose answers arrive as push frames; completes (with null) once it is written. */
    public static Command<Void> oneWay(Object... args) {
        return new Command<>(v -> null, 0, true, args);
    }

    /** Completes with the server's reply: errors become {@link ServerErrorException}. Event loop only. */
    void completeWith(RespValue value) {
        if (value instanceof RespValue.ErrorReply(String message)) {
            completeExceptionally(new ServerErrorException(message));
            return;
        }
        T result;
        try {
            result = reply.convert(value);
        } catch (RuntimeException e) {
            completeExceptionally(new SpinelException("unexpected reply " + value + " to " + name(), e));
            return;
        }
        complete(result);
    }

    /** The command name, for messages. */
    public String name() {
        Object a = args.length == 0 ? "" : args[0];
        return a instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(a);
    }
}
