package dev.spinel.client.internal;

import dev.spinel.client.ConnectionException;
import dev.spinel.client.PubSub;
import dev.spinel.client.PubSubListener;
import dev.spinel.client.ServerErrorException;
import dev.spinel.protocol.RespValue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

import static dev.spinel.client.internal.Names.*;

/**
 * A subscriber connection. Subscribe-family commands are sent one-way; the server confirms each
 * channel with a frame ({@code >} push in RESP3, an array in RESP2), in command order, so one FIFO of
 * {@link Waiter}s (one per call, counting its channels) matches confirmations to calls. Messages go to
 * the listeners. The requested subscriptions are kept and sent again after a reconnect.
 *
 * <p>Thread-safe: waiters and subscription sets change under {@code this}; frames arrive on the loop.
 */
public final class PubSubImpl<K, V> implements PubSub<K, V>, PushHandler {
    private static final class Waiter {
        final CompletableFuture<Void> done = new CompletableFuture<>();
        int remaining;

        Waiter(int remaining) {
            this.remaining = remaining;
        }
    }

    private final Replies<K, V> replies;
    private final List<PubSubListener<K, V>> listeners = new CopyOnWriteArrayList<>();
    private final ArrayDeque<Waiter> waiters = new ArrayDeque<>();
    private final Set<ByteKey> channels = new LinkedHashSet<>();
    private final Set<ByteKey> patterns = new LinkedHashSet<>();
    private final Set<ByteKey> shardChannels = new LinkedHashSet<>();
    private volatile Connection connection;
    private final Consumer<PubSubImpl<K, V>> onClose;

    public PubSubImpl(Replies<K, V> replies, Consumer<PubSubImpl<K, V>> onClose) {
        this.replies = replies;
        this.onClose = onClose;
    }

    /** Set once, right after the connection opened (before any subscription). */
    public void attach(Connection c) {
        this.connection = c;
    }

    @Override
    public void addListener(PubSubListener<K, V> listener) {
        listeners.add(listener);
    }

    @Override
    public void removeListener(PubSubListener<K, V> listener) {
        listeners.remove(listener);
    }

    @Override
    @SuppressWarnings({"unchecked", "varargs"})
    public CompletableFuture<Void> subscribe(K... names) {
        return send(SUBSCRIBE, channels, true, names);
    }

    @Override
    @SuppressWarnings({"unchecked", "varargs"})
    public CompletableFuture<Void> unsubscribe(K... names) {
        return send(UNSUBSCRIBE, channels, false, names);
    }

    @Override
    @SuppressWarnings({"unchecked", "varargs"})
    public CompletableFuture<Void> psubscribe(K... names) {
        return send(PSUBSCRIBE, patterns, true, names);
    }

    @Override
    @SuppressWarnings({"unchecked", "varargs"})
    public CompletableFuture<Void> punsubscribe(K... names) {
        return send(PUNSUBSCRIBE, patterns, false, names);
    }

    @Override
    @SuppressWarnings({"unchecked", "varargs"})
    public CompletableFuture<Void> ssubscribe(K... names) {
        return send(SSUBSCRIBE, shardChannels, true, names);
    }

    @Override
    @SuppressWarnings({"unchecked", "varargs"})
    public CompletableFuture<Void> sunsubscribe(K... names) {
        return send(SUNSUBSCRIBE, shardChannels, false, names);
    }

    private synchronized CompletableFuture<Void> send(byte[] command, Set<ByteKey> set, boolean add, K[] names) {
        List<byte[]> list = new ArrayList<>();
        if (names.length == 0 && !add) { // everything: name them, so the number of confirmations is known
            for (ByteKey k : set) {
                list.add(k.bytes());
            }
        } else {
            for (K n : names) {
                list.add(replies.codec.encodeKey(n));
            }
        }
        if (list.isEmpty()) {
            return add ? CompletableFuture.failedFuture(new IllegalArgumentException("no channel given"))
                    : CompletableFuture.completedFuture(null);
        }
        for (byte[] b : list) {
            if (add) {
                set.add(new ByteKey(b));
            } else {
                set.remove(new ByteKey(b));
            }
        }
        return sendLocked(command, list);
    }

    private CompletableFuture<Void> sendLocked(byte[] command, List<byte[]> names) {
        Waiter w = new Waiter(names.size());
        waiters.add(w);
        Object[] args = new Object[names.size() + 1];
        args[0] = command;
        for (int i = 0; i < names.size(); i++) {
            args[i + 1] = names.get(i);
        }
        connection.submit(Command.oneWay(args)).whenComplete((v, e) -> {
            if (e != null) {
                synchronized (this) {
                    waiters.remove(w);
                }
                w.done.completeExceptionally(e);
            }
        });
        return w.done;
    }

    @Override
    public boolean onFrame(RespValue v) {
        if (v instanceof RespValue.ErrorReply(String message)) {
            Waiter w;
            synchronized (this) {
                w = waiters.poll();
            }
            if (w != null) {
                w.done.completeExceptionally(new ServerErrorException(message));
                return true;
            }
            return false;
        }
        if (!(v instanceof RespValue.Push) && !(v instanceof RespValue.Array)) {
            return false;
        }
        List<RespValue> items = Replies.items(v);
        if (items.isEmpty()) {
            return false;
        }
        String kind = RespValue.text(items.get(0));
        if (kind == null) {
            return false;
        }
        switch (kind) {
            case "message" -> deliver(l -> l.message(key(items, 1), value(items, 2)));
            case "pmessage" -> deliver(l -> l.message(key(items, 1), key(items, 2), value(items, 3)));
            case "smessage" -> deliver(l -> l.shardMessage(key(items, 1), value(items, 2)));
            case "subscribe", "unsubscribe", "psubscribe", "punsubscribe", "ssubscribe", "sunsubscribe" -> confirmed();
            default -> {
                return false;
            }
        }
        return true;
    }

    private K key(List<RespValue> items, int i) {
        return replies.key.convert(items.get(i));
    }

    private V value(List<RespValue> items, int i) {
        return replies.value.convert(items.get(i));
    }

    private void deliver(Consumer<PubSubListener<K, V>> call) {
        for (PubSubListener<K, V> l : listeners) {
            try {
                call.accept(l);
            } catch (RuntimeException ignored) {
                // a failing listener must not break the connection or the other listeners
            }
        }
    }

    private void confirmed() {
        Waiter done = null;
        synchronized (this) {
            Waiter w = waiters.peek();
            if (w != null && --w.remaining == 0) {
                done = waiters.poll();
            }
        }
        if (done != null) {
            done.done.complete(null);
        }
    }

    @Override
    public void onReconnected(Connection c) {
        List<Waiter> old;
        List<CompletableFuture<Void>> restored = new ArrayList<>();
        synchronized (this) {
            old = new ArrayList<>(waiters);
            waiters.clear();
            restore(SUBSCRIBE, channels, restored);
            restore(PSUBSCRIBE, patterns, restored);
            restore(SSUBSCRIBE, shardChannels, restored);
        }
        // Calls pending across the reconnect complete once the subscriptions are restored.
        CompletableFuture<Void> all = CompletableFuture.allOf(restored.toArray(CompletableFuture[]::new));
        for (Waiter w : old) {
            all.whenComplete((v, e) -> {
                if (e != null) {
                    w.done.completeExceptionally(new ConnectionException("subscriptions not restored after reconnect", e));
                } else {
                    w.done.complete(null);
                }
            });
        }
    }

    private void restore(byte[] command, Set<ByteKey> set, List<CompletableFuture<Void>> out) {
        if (!set.isEmpty()) {
            List<byte[]> names = new ArrayList<>();
            for (ByteKey k : set) {
                names.add(k.bytes());
            }
            out.add(sendLocked(command, names));
        }
    }

    @Override
    public void close() {
        onClose.accept(this);
        Connection c = connection;
        if (c != null) {
            c.close();
        }
    }
}
