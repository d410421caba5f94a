package dev.spinel.server;

import dev.spinel.server.commands.Commands;
import dev.spinel.server.config.ConfigException;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.net.RespServer;
import dev.spinel.server.persistence.Persistence;
import dev.spinel.store.Keyspace;
import io.netty.util.concurrent.ScheduledFuture;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A running Spinel server: keyspace, engine, and the RESP front end. Embed it in a JVM test:
 * <pre>{@code
 * try (SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0"))) {
 *     int port = server.port(); // connect any Redis client here
 * }
 * }</pre>
 * Port 0 picks a free ephemeral port.
 *
 * <p>Thread-safety: {@link #start} and {@link #close} may be called from any thread; close is idempotent.
 */
public final class SpinelServer implements AutoCloseable {
    public static final String VERSION = "0.1.0";
    /** The Redis command level implemented, reported as {@code redis_version}. */
    public static final String REDIS_VERSION = "7.0.15";

    private final ServerConfig config;
    private final Engine engine;
    private final RespServer resp;
    private volatile int port;
    /** What the listeners are bound to now, to skip a CONFIG SET that changes nothing and to fall back on failure. */
    private List<String> boundAddresses;
    private int requestedPort;
    private volatile ScheduledFuture<?> cron;
    private final Persistence persistence;
    private final ScheduledFuture<?> persistenceCron;
    private final CountDownLatch closed = new CountDownLatch(1);
    private volatile boolean closing;
    /** Running extensions (the gRPC service), closed before the RESP front end. */
    private final List<AutoCloseable> extensions = new java.util.ArrayList<>();

    private SpinelServer(ServerConfig config) throws InterruptedException {
        this.config = config;
        Keyspace keyspace = new Keyspace((int) config.databases.value());
        // Access stamps are LFU counters under an LFU policy (OBJECT FREQ), LRU clocks otherwise.
        keyspace.lfu(config.maxmemoryPolicy.value().endsWith("-lfu"));
        config.maxmemoryPolicy.listen(policy -> keyspace.lfu(policy.endsWith("-lfu")));
        CommandTable table = new CommandTable();
        this.engine = new Engine(config, keyspace, table);
        this.persistence = new Persistence(config, keyspace, engine.stats());
        Commands.registerAll(table, this);
        persistence.loadAtStartup(engine); // before accepting connections; a bad file stops the start
        this.resp = new RespServer(engine);
        try {
            this.boundAddresses = bindAddresses();
            this.requestedPort = (int) config.port.value();
            this.port = resp.bind(boundAddresses, requestedPort);
        } catch (RuntimeException | InterruptedException e) {
            resp.close();
            throw e;
        }
        this.cron = scheduleCron();
        this.persistenceCron = resp.workerGroup().next().scheduleAtFixedRate(persistence::cron, 100, 100, TimeUnit.MILLISECONDS);
        try {
            startExtensions();
        } catch (RuntimeException e) {
            close();
            throw e;
        }
        // CONFIG SET port/bind listen anew (as Redis does); hz changes the cron's rate.
        config.onApply(config.port, () -> rebind("Unable to listen on this port"));
        config.onApply(config.bind, () -> rebind("Failed to bind to specified addresses."));
        config.onApply(config.loglevel, () -> Log.level(config.loglevel.value()));
        config.onApply(config.hz, () -> {
            ScheduledFuture<?> old = cron;
            cron = scheduleCron();
            old.cancel(false);
        });
    }

    private void startExtensions() {
        for (SpinelExtension x : java.util.ServiceLoader.load(SpinelExtension.class)) {
            try {
                AutoCloseable running = x.start(this);
                if (running != null) {
                    extensions.add(running);
                }
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException(x.getClass().getName() + ": " + e.getMessage(), e);
            }
        }
    }

    /** The event loops of the RESP front end, which other front ends may share. */
    public io.netty.channel.EventLoopGroup eventLoops() {
        return resp.workerGroup();
    }

    private ScheduledFuture<?> scheduleCron() {
        long periodMs = Math.max(2, 1000 / Math.max(1, Math.min(500, config.hz.value())));
        return resp.workerGroup().next().scheduleAtFixedRate(new ServerCron(engine), periodMs, periodMs, TimeUnit.MILLISECONDS);
    }

    private List<String> bindAddresses() {
        return Arrays.stream(config.bind.value().trim().split("\\s+")).filter(s -> !s.isEmpty()).toList();
    }

    private synchronized void rebind(String error) throws ConfigException {
        List<String> addresses = bindAddresses();
        int wanted = (int) config.port.value();
        if (addresses.equals(boundAddresses) && wanted == requestedPort) {
            return;
        }
        try {
            port = resp.rebind(addresses, wanted, boundAddresses, port);
            boundAddresses = addresses;
            requestedPort = wanted;
        } catch (RuntimeException e) {
            Log.warning(error + ": " + e.getMessage());
            throw new ConfigException(error);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConfigException(error);
        }
    }

    /** Starts a server with this configuration; returns once it accepts connections. */
    public static SpinelServer start(ServerConfig config) {
        try {
            return new SpinelServer(config);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting", e);
        }
    }

    /** Starts an in-memory server on a free port of 127.0.0.1, for tests. */
    public static SpinelServer startEphemeral() {
        return start(ServerConfig.defaults().with("port", "0"));
    }

    public int port() {
        return port;
    }

    public ServerConfig config() {
        return config;
    }

    public Engine engine() {
        return engine;
    }

    /** Snapshots: SAVE/BGSAVE, the save schedule, INFO persistence, the final save at shutdown. */
    public Persistence persistence() {
        return persistence;
    }

    /** The network transport of the RESP front end's event loops, which the gRPC service shares. */
    public dev.spinel.server.net.IoTransport transport() {
        return resp.transport();
    }

    /** Stops accepting, closes every connection, and releases the threads. */
    @Override
    public void close() {
        synchronized (this) {
            if (closing) {
                return;
            }
            closing = true;
        }
        cron.cancel(false);
        persistenceCron.cancel(false);
        for (int i = extensions.size() - 1; i >= 0; i--) {
            try {
                extensions.get(i).close();
            } catch (Exception e) {
                Log.warning("stopping " + extensions.get(i) + ": " + e.getMessage());
            }
        }
        resp.close();
        persistence.close();
        closed.countDown();
    }

    /** Asks the server to stop from a command (SHUTDOWN); returns at once, the stop happens on another thread. */
    public void shutdownAsync() {
        Thread t = new Thread(this::close, "spinel-shutdown");
        t.start();
    }

    public boolean isClosed() {
        return closing;
    }

    /** Blocks until the server is closed. */
    public void awaitClose() throws InterruptedException {
        closed.await();
    }
}
