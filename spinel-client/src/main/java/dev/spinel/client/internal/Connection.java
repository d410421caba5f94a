package dev.spinel.client.internal;

import javax.net.ssl.SSLException;

import dev.spinel.client.ClientOptions;
import dev.spinel.client.CommandTimeoutException;
import dev.spinel.client.ConnectionException;
import dev.spinel.client.QueueFullException;
import dev.spinel.client.RedisUri;
import dev.spinel.client.ServerErrorException;
import dev.spinel.protocol.RespValue;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.EventLoop;
import io.netty.util.concurrent.ScheduledFuture;

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One logical connection to the server that survives reconnects: callers on any thread submit
 * commands; the event loop writes everything submitted since its last write in one buffer and one
 * flush (automatic pipelining), and completes commands in FIFO order as replies arrive.
 *
 * <p>Writes: {@link #submit} links the command into an MPSC {@link CommandQueue} and schedules a flush
 * task only if none is scheduled, so N concurrent callers cost one task and one syscall, not N.
 * Lifecycle: connect, handshake ({@code HELLO 3 [AUTH]}, falling back to RESP2 {@code AUTH} when the
 * server does not know HELLO; then {@code SELECT}), ready. When the channel dies, commands already
 * written fail with {@link ConnectionException} (they may or may not have run); commands not yet
 * written wait and are sent after the automatic reconnect (exponential backoff), or time out.
 *
 * <p>Thread-safety: {@link #submit} and {@link #close} from any thread; every other field is confined to
 * {@link #loop}. Futures complete on the event loop: their callbacks must not block.
 */
public final class Connection {
    /**
     * Bytes encoded before they go to the socket. Each chunk is flushed at once so the server works on it
     * while the loop encodes the next; the buffer is allocated at this size so it rarely grows (a copy each
     * time: growing from 4 KiB was 6% of the loop's time in bulk loads, profiled).
     * Before, one flush task sent nothing until the whole queue was drained: 100k SETs from 10 threads left
     * in ~1 flush, the server idle until the last was encoded (measured, 2026-11-23).
     */
    private static final int WRITE_CHUNK = 64 * 1024;
    /**
     * The first write of a flush is smaller, so the server starts on a burst while the loop encodes the
     * rest. 1000 pipelined PINGs: the first reply came ~20 µs earlier and the burst ended ~10 % sooner
     * than with one 14 KB write (2026-11-23, timestamps in the loop; 2 and 4 KB were no better).
     */
    private static final int FIRST_CHUNK = 8 * 1024;
    /**
     * Replies matched before their commands are completed: {@link #outstanding} is then updated once per
     * batch, not with an atomic per reply on the counter every submitting thread increments.
     */
    private static final int ANSWER_BATCH = 256;
    /** Bytes one flush task writes before it yields the loop (to read replies), rescheduling itself. */
    private static final int FLUSH_BUDGET = 8 * WRITE_CHUNK;

    private final EventLoop loop;
    private final Bootstrap bootstrap;
    private final RedisUri uri;
    private final ClientOptions options;
    private final long timeoutNanos;
    private final PushHandler pushHandler;

    private final CommandQueue queue = new CommandQueue();
    private final AtomicBoolean flushScheduled = new AtomicBoolean();
    private final AtomicInteger outstanding = new AtomicInteger();
    private final Runnable flushTask = this::flush;
    private volatile boolean closed;
    /** Writes+flushes done (diagnostics: commands per flush shows how well writes coalesce). */
    private volatile long flushes;

    // Event-loop confined.
    private Channel channel;
    private boolean ready;
    private volatile int protocol = 2;
    private final ArrayDeque<Command<?>> waiting = new ArrayDeque<>();
    private final ArrayDeque<Command<?>> inflight = new ArrayDeque<>();
    private final RespDecoder decoder = new RespDecoder();
    /** Commands answered in the current read, with their replies, completed together by {@link #completeAnswered}. */
    private final Command<?>[] answered = new Command<?>[ANSWER_BATCH];
    private final RespValue[] answers = new RespValue[ANSWER_BATCH];
    private int answeredCount;
    private long backoffNanos;
    private Throwable closeCause;
    private CompletableFuture<Connection> firstConnect;
    private ScheduledFuture<?> sweeper;

    private Connection(EventLoop loop, Bootstrap bootstrap, RedisUri uri, ClientOptions options, PushHandler pushHandler) {
        this.loop = loop;
        this.bootstrap = bootstrap;
        this.uri = uri;
        this.options = options;
        this.timeoutNanos = options.commandTimeout().toNanos();
        this.pushHandler = pushHandler;
        this.backoffNanos = options.reconnectMin().toNanos();
    }

    /** Opens a connection; the future completes once the handshake succeeded (or fails with its error). */
    public static CompletableFuture<Connection> open(Transport transport, RedisUri uri, ClientOptions options, PushHandler push) {
        EventLoop loop = transport.nextLoop();
        Bootstrap b = transport.bootstrap(loop, (int) Math.min(Integer.MAX_VALUE, options.connectTimeout().toMillis()));
        Connection c = new Connection(loop, b, uri, options, push);
        CompletableFuture<Connection> f = new CompletableFuture<>();
        loop.execute(() -> {
            c.firstConnect = f;
            long period = Math.clamp(c.timeoutNanos / 8, TimeUnit.MILLISECONDS.toNanos(1), TimeUnit.MILLISECONDS.toNanos(100));
            c.sweeper = loop.scheduleAtFixedRate(c::sweepTimeouts, period, period, TimeUnit.NANOSECONDS);
            c.connect();
        });
        return f;
    }

    /** 3 after a successful {@code HELLO 3}, else 2. */
    public int protocol() {
        return protocol;
    }

    public boolean isOpen() {
        return !closed;
    }

    /** How many times this connection flushed user commands to the socket. */
    public long flushes() {
        return flushes;
    }

    /** Commands submitted and not yet answered (or failed). */
    public int outstanding() {
        return outstanding.get();
    }

    /** Queues a command to be written with the next coalesced flush; returns it (it is the future). */
    public <T> Command<T> submit(Command<T> c) {
        if (closed) {
            c.completeExceptionally(new ConnectionException("client is closed"));
            return c;
        }
        if (outstanding.incrementAndGet() > options.maxInFlight()) {
            outstanding.decrementAndGet();
            c.completeExceptionally(new QueueFullException("more than " + options.maxInFlight()
                    + " commands queued or awaiting replies on this connection"));
            return c;
        }
        queue.offer(c); // its deadline is set when the loop takes it (see take): no clock read per command here

        if (!flushScheduled.get() && flushScheduled.compareAndSet(false, true)) {
            try {
                loop.execute(flushTask);
            } catch (RejectedExecutionException e) {
                c.completeExceptionally(new ConnectionException("client is closed"));
            }
        }
        return c;
    }

    /** Closes the connection for good; pending commands fail. Returns when the channel is closed. */
    public CompletableFuture<Void> close() {
        closed = true;
        CompletableFuture<Void> done = new CompletableFuture<>();
        try {
            loop.execute(() -> {
                if (sweeper != null) {
                    sweeper.cancel(false);
                }
                failAll(new ConnectionException("client is closed"), true);
                if (channel != null) {
                    channel.close().addListener(f -> done.complete(null));
                } else {
                    done.complete(null);
                }
            });
        } catch (RejectedExecutionException e) {
            done.complete(null);
        }
        return done;
    }

    // ---- event loop only below ----

    private void connect() {
        if (closed) {
            return;
        }
        ChannelFuture cf = bootstrap.handler(new ConnectionHandler(this)).connect(uri.host(), uri.port());
        cf.addListener(f -> {
            if (f.isSuccess()) {
                if (closed) { // closed while connecting
                    cf.channel().close();
                    connectFailed(new ConnectionException("client is closed"));
                    return;
                }
                channel = cf.channel();
                handshake();
            } else {
                connectFailed(f.cause());
            }
        });
    }

    private void connectFailed(Throwable cause) {
        if (firstConnect != null) {
            CompletableFuture<Connection> f = firstConnect;
            firstConnect = null;
            closed = true;
            if (sweeper != null) {
                sweeper.cancel(false);
            }
            failAll(new ConnectionException("cannot connect to " + uri + ": " + cause.getMessage(), cause), true);
            if (channel != null) {
                channel.close();
            }
            f.completeExceptionally(cause instanceof ConnectionException || cause instanceof ServerErrorException
                    ? cause : new ConnectionException("cannot connect to " + uri + ": " + cause, cause));
            return;
        }
        if (channel != null) {
            channel.close();
        } else {
            scheduleReconnect();
        }
    }

    private void scheduleReconnect() {
        if (closed) {
            return;
        }
        long delay = backoffNanos;
        backoffNanos = Math.min(backoffNanos * 2, options.reconnectMax().toNanos());
        try {
            loop.schedule(this::connect, delay, TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException shuttingDown) {
            closed = true;
        }
    }

    /** HELLO 3 (with AUTH), or on "unknown command"/NOPROTO the RESP2 way: AUTH, then SELECT (see {@link Handshake}). */
    private void handshake() {
        Channel ch = channel;
        Handshake.run(uri, options.resp3(), args -> direct(new Command<>(v -> v, args)), p -> protocol = p)
                .whenComplete((v, e) -> {
                    if (ch != channel) {
                        return; // that channel died meanwhile
                    }
                    if (e != null) {
                        connectFailed(e instanceof CompletionException ? e.getCause() : e);
                    } else {
                        ready();
                    }
                });
    }

    /** Writes a handshake command ahead of everything queued. */
    private <T> Command<T> direct(Command<T> c) {
        ByteBuf buf = channel.alloc().ioBuffer(Encoder.estimate(c.args));
        Encoder.encode(buf, c.args);
        c.deadline = System.nanoTime() + timeoutNanos;
        outstanding.incrementAndGet();
        inflight.add(c);
        channel.writeAndFlush(buf);
        return c;
    }

    private void ready() {
        ready = true;
        backoffNanos = options.reconnectMin().toNanos();
        if (firstConnect != null) {
            CompletableFuture<Connection> f = firstConnect;
            firstConnect = null;
            f.complete(this);
        } else if (pushHandler != null) {
            pushHandler.onReconnected(this);
        }
        flush();
    }

    private void flush() {
        flushScheduled.set(false);
        long now = System.nanoTime();
        if (closed) {
            failAll(new ConnectionException("client is closed"), true);
            return;
        }
        if (!ready) {
            for (Command<?> c; (c = take(now)) != null; ) {
                waiting.add(c);
            }
            return;
        }
        ByteBuf buf = null;
        int sent = 0;
        while (true) {
            if (sent >= FLUSH_BUDGET) {
                if (flushScheduled.compareAndSet(false, true)) {
                    loop.execute(flushTask);
                }
                break;
            }
            Command<?> c = waiting.poll();
            if (c == null && (c = take(now)) == null) {
                break;
            }
            if (c.isDone()) { // cancelled or timed out before it was sent: never send it
                outstanding.decrementAndGet();
                continue;
            }
            if (buf == null) {
                buf = channel.alloc().ioBuffer(WRITE_CHUNK);
            }
            int mark = buf.writerIndex();
            try {
                Encoder.encode(buf, c.args);
            } catch (RuntimeException e) { // an argument of a type no command takes: this command fails, not the batch
                buf.writerIndex(mark);
                outstanding.decrementAndGet();
                c.completeExceptionally(new IllegalArgumentException("cannot send " + c.name() + ": " + e.getMessage(), e));
                continue;
            }
            if (c.oneWay) {
                outstanding.decrementAndGet();
                c.complete(null);
            } else {
                inflight.add(c);
            }
            if (buf.readableBytes() >= (sent == 0 ? FIRST_CHUNK : WRITE_CHUNK) - 512) {
                sent += send(buf);
                buf = null;
            }
        }
        if (buf != null) {
            send(buf);
        }
    }

    /** Writes and flushes one chunk; returns its size. */
    private int send(ByteBuf buf) {
        int n = buf.readableBytes();
        channel.writeAndFlush(buf, channel.voidPromise());
        flushes++; // single writer (the loop): a plain increment of the volatile is safe
        return n;
    }

    /** One decoded frame from the server. */
    void onFrame(RespValue v) {
        if (pushHandler != null || v instanceof RespValue.Push) {
            completeAnswered(); // replies before this frame complete before it is handled
            if (pushHandler != null && pushHandler.onFrame(v)) {
                return;
            }
            if (v instanceof RespValue.Push) {
                return; // e.g. client-tracking invalidations nobody subscribed to
            }
        }
        Command<?> c = inflight.poll();
        if (c == null) {
            throw new ProtocolError("reply without a pending command: " + v);
        }
        if (answeredCount == ANSWER_BATCH) {
            completeAnswered();
        }
        answered[answeredCount] = c;
        answers[answeredCount++] = v;
    }

    /**
     * Completes the commands answered so far, in order, after one update of {@link #outstanding} (so a
     * completion callback, e.g. the pool's release, sees its own command no longer outstanding). Called by
     * the handler after every read, also when decoding failed part-way.
     */
    void completeAnswered() {
        int n = answeredCount;
        if (n == 0) {
            return;
        }
        answeredCount = 0;
        outstanding.addAndGet(-n);
        for (int i = 0; i < n; i++) {
            Command<?> c = answered[i];
            RespValue v = answers[i];
            answered[i] = null;
            answers[i] = null;
            c.completeWith(v);
        }
    }

    /** Why the channel is about to close (e.g. a TLS alert), for the failure message of what it had pending. */
    void onError(Channel ch, Throwable cause) {
        if (ch == channel && closeCause == null) {
            closeCause = cause;
        }
    }

    void onInactive(Channel ch) {
        if (ch != channel) {
            return;
        }
        Throwable cause = closeCause;
        closeCause = null;
        completeAnswered(); // answered before the channel died: they get their replies
        ready = false;
        channel = null;
        decoder.reset();
        // e.g. TLS 1.3: a server that wants a client certificate says so with an alert after the client's handshake
        String why = cause == null ? "" : " (" + reason(cause) + ")";
        ConnectionException e = new ConnectionException("connection to " + uri + " lost" + why
                + "; the command may or may not have been executed", cause);
        for (Command<?> c; (c = inflight.poll()) != null; ) {
            outstanding.decrementAndGet();
            c.completeExceptionally(e);
        }
        if (firstConnect != null) {
            connectFailed(e);
        } else {
            scheduleReconnect();
        }
    }

    /**
     * The next submitted command, its deadline counted from {@code now}. Stamping here, once per batch on
     * the loop, and not in {@link #submit}, saves a clock read per command on the caller's thread (a fifth
     * of the caller's time for pipelined PINGs, profiled); the command's wait in the queue before this is
     * a loop turn, which the sweeper (on the same loop) could not have seen expire anyway.
     */
    private Command<?> take(long now) {
        Command<?> c = queue.poll();
        if (c != null) {
            c.deadline = now + timeoutNanos + c.extraNanos;
        }
        return c;
    }

    private static String reason(Throwable t) {
        while (t.getCause() != null && !(t instanceof SSLException)) {
            t = t.getCause();
        }
        return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    }

    RespDecoder decoder() {
        return decoder;
    }

    private void failAll(RuntimeException e, boolean includingUnsent) {
        for (Command<?> c; (c = inflight.poll()) != null; ) {
            outstanding.decrementAndGet();
            c.completeExceptionally(e);
        }
        if (includingUnsent) {
            for (Command<?> c; (c = waiting.poll()) != null || (c = queue.poll()) != null; ) {
                outstanding.decrementAndGet();
                c.completeExceptionally(e);
            }
        }
    }

    /** Fails commands past their deadline. Sent ones stay queued until their reply arrives (FIFO matching). */
    private void sweepTimeouts() {
        long now = System.nanoTime();
        if (!ready) {
            for (Command<?> c; (c = take(now)) != null; ) {
                waiting.add(c);
            }
            for (var it = waiting.iterator(); it.hasNext(); ) {
                Command<?> c = it.next();
                if (c.isDone() || now - c.deadline > 0) {
                    it.remove();
                    outstanding.decrementAndGet();
                    timeout(c);
                }
            }
        }
        for (Command<?> c : inflight) {
            if (now - c.deadline > 0) {
                timeout(c);
            } else if (c.extraNanos == 0) {
                break; // later commands of the same timeout expire later
            }
        }
    }

    private static void timeout(Command<?> c) {
        if (!c.isDone()) {
            c.completeExceptionally(new CommandTimeoutException(c.name() + " got no reply in time"));
        }
    }
}
