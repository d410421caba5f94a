package dev.spinel.client.internal;

import dev.spinel.client.AsyncCommands;
import dev.spinel.client.DedicatedConnection;
import dev.spinel.client.SpinelException;
import dev.spinel.client.SyncCommands;
import dev.spinel.client.TransactionAbortedException;
import dev.spinel.protocol.RespValue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static dev.spinel.client.internal.Names.DISCARD;
import static dev.spinel.client.internal.Names.EXEC;
import static dev.spinel.client.internal.Names.MULTI;
import static dev.spinel.client.internal.Names.UNWATCH;
import static dev.spinel.client.internal.Names.WATCH;

/**
 * A pooled connection used by one borrower. Inside MULTI each typed command is sent as is; the
 * server's {@code +QUEUED} is checked by a stand-in command, and the caller's command is kept in
 * {@link #queued} to be completed from its slot of the EXEC reply.
 *
 * <p>Thread-safe: transaction state changes under {@code this}, so the order of submission and
 * the order of {@link #queued} agree.
 */
public final class DedicatedCommands<K, V> implements AllCommandsImpl<K, V>, DedicatedConnection<K, V> {
    private static final Reply<Void> QUEUED = v -> {
        if (v != RespDecoder.QUEUED && !"QUEUED".equals(RespValue.text(v))) {
            throw new IllegalStateException("expected QUEUED");
        }
        return null;
    };

    private final Connection connection;
    private final ConnectionPool pool;
    private final Replies<K, V> replies;
    private boolean inMulti;
    private List<Command<?>> queued = new ArrayList<>();
    private boolean released;
    private final AllSyncCommandsImpl<K, V> sync = () -> this;

    public DedicatedCommands(Connection connection, ConnectionPool pool, Replies<K, V> replies) {
        this.connection = connection;
        this.pool = pool;
        this.replies = replies;
    }

    @Override
    public synchronized <T> CompletableFuture<T> dispatch(Command<T> command) {
        if (!inMulti) {
            return connection.submit(command);
        }
        queued.add(command);
        Command<Void> standIn = new Command<>(QUEUED, command.args);
        standIn.whenComplete((v, e) -> {
            if (e != null) {
                command.completeExceptionally(e);
            }
        });
        connection.submit(standIn);
        return command;
    }

    @Override
    public <T> CompletableFuture<T> dispatchBlocking(Command<T> command) {
        return dispatch(command); // this connection is ours: blocking here stalls nobody else
    }

    @Override
    public Replies<K, V> replies() {
        return replies;
    }

    @Override
    public AsyncCommands<K, V> async() {
        return this;
    }

    @Override
    public SyncCommands<K, V> sync() {
        return sync;
    }

    @Override
    @SuppressWarnings("unchecked")
    public CompletableFuture<String> watch(K... keys) {
        return connection.submit(new Command<>(Replies.STATUS, cat(WATCH, ks(keys))));
    }

    @Override
    public CompletableFuture<String> unwatch() {
        return connection.submit(new Command<>(Replies.STATUS, UNWATCH));
    }

    @Override
    public synchronized CompletableFuture<String> multi() {
        if (inMulti) {
            return CompletableFuture.failedFuture(new SpinelException("MULTI calls can not be nested"));
        }
        inMulti = true;
        return connection.submit(new Command<>(Replies.STATUS, MULTI));
    }

    @Override
    public synchronized CompletableFuture<Boolean> exec() {
        List<Command<?>> commands = endMulti();
        return connection.submit(new Command<>(Replies.RAW, EXEC)).handle((reply, error) -> {
            if (error != null) { // EXECABORT (a command was refused while queuing), or the connection died
                fail(commands, error);
                throw error instanceof RuntimeException r ? r : new SpinelException(error.toString(), error);
            }
            if (reply instanceof RespValue.Null) {
                fail(commands, new TransactionAbortedException("transaction aborted: a watched key changed"));
                return false;
            }
            List<RespValue> results = Replies.items(reply);
            for (int i = 0; i < commands.size(); i++) {
                if (i < results.size()) {
                    commands.get(i).completeWith(results.get(i));
                } else {
                    commands.get(i).completeExceptionally(new SpinelException("EXEC returned fewer results than commands queued"));
                }
            }
            return true;
        });
    }

    @Override
    public synchronized CompletableFuture<String> discard() {
        List<Command<?>> commands = endMulti();
        fail(commands, new SpinelException("transaction discarded"));
        return connection.submit(new Command<>(Replies.STATUS, DISCARD));
    }

    private List<Command<?>> endMulti() {
        inMulti = false;
        List<Command<?>> commands = queued;
        queued = new ArrayList<>();
        return commands;
    }

    private static void fail(List<Command<?>> commands, Throwable e) {
        for (Command<?> c : commands) {
            c.completeExceptionally(e);
        }
    }

    @Override
    public synchronized void close() {
        if (released) {
            return;
        }
        released = true;
        boolean clean = !inMulti;
        if (inMulti) {
            fail(endMulti(), new SpinelException("connection closed inside MULTI"));
        }
        pool.release(connection, clean);
    }
}
