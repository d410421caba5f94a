package dev.spinel.server.replication;

import dev.spinel.server.durability.Aof;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.engine.Propagator;

import java.util.concurrent.Executor;

/**
 * The engine's writes feeding a master's {@link ReplicationStream}: through the log's propagator, or with
 * {@code appendonly no} a replication-only propagator installed for the stream (removed with it), after which
 * the event loops are quiesced ({@link LoopBarrier}) so that no write in flight misses the stream.
 *
 * <p>Thread-safety: {@link #start}, {@link #stop} and {@link #installed} run under the {@link Replication}'s
 * monitor; {@link #quiesce} outside it.
 */
final class EngineFeed {
    private final Engine engine;
    private final LoopBarrier barrier = new LoopBarrier();
    /** The replication-only propagator this class installed (removed with the stream), or null. */
    private Propagator installed;

    EngineFeed(Engine engine) {
        this.engine = engine;
    }

    /** Where the threads that run commands (the event loops) are, for {@link LoopBarrier#quiesce}. */
    void threads(Iterable<? extends Executor> loops) {
        barrier.threads(loops);
    }

    /** True when starting the feed installs a propagator (no log, none installed yet): quiesce after it. */
    boolean mustInstall() {
        return installed == null && engine.hooks().propagator() == null;
    }

    /** True while a replication-only propagator of this feed is installed. */
    boolean installed() {
        return installed != null;
    }

    /** Waits until every loop has finished the command it was running (writes begun before the feed). */
    void quiesce() {
        barrier.quiesce();
    }

    /** The engine's writes feed {@code s} (through the log's propagator, installed for it with appendonly no). */
    void start(ReplicationStream s) {
        engine.hooks().replicationFeed(s);
        if (engine.hooks().propagator() == null) {
            // appendonly no: writes now go through the propagator (stripes held while logged) for the stream
            installed = Aof.replicationOnly(engine);
            engine.hooks().propagator(installed);
        }
    }

    /** Stops the engine's feed (the server becomes a replica); the stream and its history stay. */
    void stop() {
        engine.hooks().replicationFeed(null);
        if (installed != null && engine.hooks().propagator() == installed) {
            engine.hooks().propagator(null);
        }
        installed = null;
    }
}
