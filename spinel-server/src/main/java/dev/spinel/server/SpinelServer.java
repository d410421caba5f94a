package dev.spinel.server;

import dev.spinel.protocol.Version;
import dev.spinel.server.cluster.ClusterMode;
import dev.spinel.server.commands.Commands;
import dev.spinel.server.commands.server.ServerControl;
import dev.spinel.server.config.ConfigException;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.durability.Persistence;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.engine.Session;
import dev.spinel.server.engine.eviction.ClientEviction;
import dev.spinel.server.log.Log;
import dev.spinel.server.metrics.MetricsEndpoint;
import dev.spinel.server.migrate.MigrateSockets;
import dev.spinel.server.net.IoTransport;
import dev.spinel.server.net.Listeners;
import dev.spinel.server.net.LoopHold;
import dev.spinel.server.net.RespServer;
import dev.spinel.server.net.ServerTls;
import dev.spinel.server.replication.ExpiredAtLoad;
import dev.spinel.server.replication.Replication;
import dev.spinel.server.replication.ReplicationMemory;
import dev.spinel.server.replication.ShutdownWait;
import dev.spinel.server.scripting.Scripting;
import dev.spinel.store.Keyspace;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.concurrent.CountDownLatch;

/**
 * A running Spinel server: keyspace, engine, and the RESP front end. Embed it in a JVM test:
 * <pre>{@code
 * try (SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0"))) {
 *     int port = server.port(); // connect any Redis client here
 * }
 * }</pre>
 * Port 0 picks a free ephemeral port (unless {@code tls-port} is set: then it means no plain listener,
 * as in Redis).
 *
 * <p>Thread-safety: {@link #start} and {@link #close} may be called from any thread; close is idempotent.
 */
public final class SpinelServer implements AutoCloseable, ServerControl {
    /** Spinel's release, for embedders ({@link Version#SPINEL}). */
    public static final String VERSION = Version.SPINEL;
    /** The Redis command level implemented, reported as {@code redis_version} ({@link Version#REDIS}). */
    public static final String REDIS_VERSION = Version.REDIS;

    private final ServerConfig config;
    private final Engine engine;
    private final Scripting scripting;
    private final RespServer resp;
    /** Ports bound now (plain, TLS); 0 when there is no such listener. */
    private volatile int port;
    private volatile int tlsPort;
    /** What the listeners are bound to now, to skip a CONFIG SET that changes nothing and to fall back on failure. */
    private List<String> boundAddresses;
    /** The ports asked for (0: any free port; -1: no listener), see {@link #wantedPorts}. */
    private int requestedPort;
    private int requestedTlsPort;
    /** The periodic tasks, on a timer thread of their own (none on the event loops). */
    private final ServerCrons crons;
    private final Persistence persistence;
    private final Replication replication;
    private final ShutdownWait shutdownWait;
    private final SignalShutdown signals;
    private final ClientEviction clientEviction;
    /** Cluster mode, or null when cluster-enabled is off. */
    private final ClusterMode cluster;
    private final MigrateSockets migrateSockets = new MigrateSockets();
    private final CountDownLatch closed = new CountDownLatch(1);
    private volatile boolean closing;
    /** The Prometheus endpoint (metrics-port); null until built, during the start. */
    private volatile MetricsEndpoint metrics;
    /** Running extensions (the gRPC service), closed before the RESP front end. */
    private final List<AutoCloseable> extensions = new ArrayList<>();

    private SpinelServer(ServerConfig config, boolean signalHandlers) throws InterruptedException {
        this.config = config;
        // As Redis: a TLS setup that cannot work stops the start before anything is loaded or bound.
        ServerTls tls = null;
        if (config.tlsPort.value() != 0 || config.tlsReplication.value()) { // Redis: tls-port or tls-replication
            try {
                tls = ServerTls.configure(config);
            } catch (ConfigException e) {
                throw new IllegalStateException("Failed to configure TLS: " + e.getMessage(), e);
            }
        }
        Keyspace keyspace = new Keyspace((int) config.databases.value(), config.clusterEnabled.value());
        keyspace.tickClock(); // from now on the cron keeps the LRU clock (ServerCron), as Redis's initServer sets it
        // Access stamps are LFU counters under an LFU policy (OBJECT FREQ), LRU clocks otherwise.
        keyspace.lfu(config.maxmemoryPolicy.value().endsWith("-lfu"));
        // Redis's canUseSharedObject: no shared integers while an LRU/LFU policy with a limit needs access clocks.
        Runnable sharing = () -> {
            String policy = config.maxmemoryPolicy.value();
            keyspace.sharedIntegers(config.maxmemory.value() == 0 || !(policy.endsWith("-lru") || policy.endsWith("-lfu")));
        };
        sharing.run();
        config.maxmemoryPolicy.listen(policy -> {
            keyspace.lfu(policy.endsWith("-lfu"));
            sharing.run();
        });
        config.maxmemory.listen(v -> sharing.run());
        CommandTable table = new CommandTable();
        this.scripting = new Scripting();
        this.engine = new Engine(config, keyspace, table, scripting);
        this.persistence = new Persistence(config, keyspace, engine.stats(), scripting.functions());
        this.replication = new Replication(engine, config, scripting.functions(), persistence);
        this.shutdownWait = new ShutdownWait(replication);
        this.signals = new SignalShutdown(this);
        if (signalHandlers) { // before the load: a signal during it stops the server at once, as Redis
            signals.install();
        }
        engine.memory().scripts(() -> scripting.cache().memory() + scripting.functions().codeBytes());
        this.clientEviction = ClientEviction.install(engine);
        ReplicationMemory replicationMemory = new ReplicationMemory(replication, config);
        engine.memory().replication(replicationMemory::backlog, replicationMemory::replicaOutputs,
                c -> c instanceof Session s && engine.hooks().isReplicaClient(s));
        engine.memory().replicaHeld(replicationMemory::heldBy);
        engine.memory().notCountedForEviction(replicationMemory::notCountedForEviction,
                replicationMemory::countedForEviction);
        try {
            this.cluster = config.clusterEnabled.value() ? ClusterMode.create(config, engine, replication) : null;
        } catch (IOException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
        Commands.registerAll(table, this);
        engine.acl().loadAtStartup(config.userDirectives(), config.aclfile.value(),
                Path.of(config.dir.value()).resolve(config.aclfile.value()));
        ExpiredAtLoad expiredAtLoad = new ExpiredAtLoad();
        if (cluster != null) { // cluster mode loads before listening (the topology waits for the data), a bad file stops the start
            persistence.loadAtStartup(engine, expiredAtLoad, cluster.loadedAsReplica());
            cluster.installRouter(table); // after loading (the log's writes are not routed), before listening
        }
        this.resp = new RespServer(engine);
        resp.tls(tls);
        if (cluster != null) {
            resp.hold(); // no command before the topology is up
        }
        if (cluster == null) {
            // Loading from before the first connection: a client that came between the bind and the load's start
            // found an empty keyspace and a PONG (CrashRecoveryTest read acknowledged writes as missing so)
            engine.replicaRole().loading().beginStartup(); // ended by this start: after closing when it fails
            resp.hold(); // and accepted once the loader knows the sizes INFO shows (its first key), or has ended
            engine.replicaRole().loading().whenKnown(resp::release);
        }
        try {
            this.boundAddresses = Listeners.bindAddresses(config);
            int[] wanted = Listeners.wantedPorts(config);
            this.requestedPort = wanted[0];
            this.requestedTlsPort = wanted[1];
            this.port = Math.max(0, resp.bind(boundAddresses, requestedPort, false));
            this.tlsPort = Math.max(0, resp.bind(boundAddresses, requestedTlsPort, true));
            if (cluster == null) { // as Redis: listening first, clients get -LOADING while the files load (INFO loading:1)
                persistence.loadAtStartup(engine, expiredAtLoad, false);
                engine.replicaRole().loading().endStartup(); // also when there was no file to load
            }
        } catch (RuntimeException | InterruptedException e) {
            resp.close(); // before the load ends: a failed load serves no client (Redis exits unserved)
            engine.replicaRole().loading().endStartup();
            if (closing) {
                throw new StartCancelled(); // SHUTDOWN during the load stopped it
            }
            throw e;
        }
        synchronized (this) { // close() waits for the rest of the start (it iterates what the start adds), or came before it
            if (closing) {
                resp.close(); // the close may still be under way on its thread: the port is free when the start fails
                throw new StartCancelled();
            }
            this.crons = new ServerCrons(new ServerCron(engine, () -> {
                clientEviction.evictAll();
                signals.tick(); // a SIGTERM or SIGINT's shutdown, as Redis's serverCron runs it
            }), config.hz::value);
            crons.start(persistence::cron, replication::cron, migrateSockets::closeIdle);
            replication.setup().listeningPort(this::port);
            replication.setup().tls(this::tlsPort, resp::tls);
            replication.commandThreads(resp.workerGroup());
            replication.setup().afterFullSync(() -> {
                if (config.appendonly.value()) {
                    try {
                        persistence.rewriteAof(); // the loaded RDB bypassed the log: it starts again from this dataset
                    } catch (IOException | RuntimeException e) {
                        Log.warning("Rewriting the AOF after the full resync failed: " + e.getMessage());
                    }
                }
            });
            Map<String, String> aux = persistence.loadedAux();
            if (aux.containsKey("repl-id") && aux.containsKey("repl-offset")) {
                // the loaded RDB's replication info: a partial resync after this restart (Redis 7.0's loadDataFromDisk)
                replication.restore(new Replication.RestoredHistory(aux.get("repl-id"), Long.parseLong(aux.get("repl-offset")),
                        Integer.parseInt(aux.getOrDefault("repl-stream-db", "0"))), cluster != null && cluster.loadedAsReplica());
            }
            expiredAtLoad.feed(replication); // the DELs of the keys the RDB had past their expiry, into the restored backlog
            persistence.replication(replication::saveInfo, replication::applyLock);
            replication.startFromConfig(); // the replicaof directive
            if (cluster != null) { // after the restored history: a replica's first PSYNC names it
                try {
                    cluster.start(port);
                } catch (RuntimeException e) {
                    resp.close(); // the port is free again for a next try
                    throw e;
                }
                resp.release();
            }
            this.metrics = new MetricsEndpoint(engine, this::port, persistence::changesSinceLastSave, resp::loopThreads,
                    engine.stats().aofFsync);
            try {
                metrics.apply();
            } catch (ConfigException e) {
                close();
                throw new IllegalStateException("Failed to start the metrics endpoint on " + config.metricsBind.value() + ":"
                        + config.metricsPort.value() + " (see the log)", e);
            }
            try {
                startExtensions();
            } catch (RuntimeException e) {
                close();
                throw e;
            }
            config.onApply(config.metricsPort, metrics::apply);
            config.onApply(config.metricsBind, metrics::apply);
            // CONFIG SET port/bind/tls-port listen anew (as Redis does); tls-* rebuild the TLS context; hz changes the cron's rate.
            config.onApply(config.port, () -> rebind("Unable to listen on this port. Check server logs."));
            config.onApply(config.bind, () -> rebind("Failed to bind to specified addresses."));
            config.onApply(config.tlsPort, () -> rebind("Unable to listen on this port. Check server logs."));
            ServerConfig.Applier reconfigureTls = () -> {
                if (config.tlsPort.value() != 0 || config.tlsReplication.value()) {
                    resp.tls(configureTls());
                }
            };
            for (var p : config.tlsContextParams()) {
                config.onApply(p, reconfigureTls);
            }
            config.onApply(config.tlsReplication, () -> {
                if (config.tlsReplication.value() && resp.tls() == null) { // as Redis: TLS is configured when first needed
                    resp.tls(configureTls());
                }
            });
            config.onApply(config.loglevel, () -> Log.level(config.loglevel.value()));
            OomScoreAdj oom = OomScoreAdj.install(config, () -> engine.replicaRole().active());
            engine.replicaRole().listen(oom::applyLogged);
            oom.applyLogged();
            config.onApply(config.hz, crons::rescheduleServerCron);
        }
    }

    private void startExtensions() {
        for (SpinelExtension x : ServiceLoader.load(SpinelExtension.class)) {
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

    /** The Prometheus endpoint: its port, and the registry where front ends add their metrics. */
    public MetricsEndpoint metrics() {
        return metrics;
    }

    /** The event loops of the RESP front end, which other front ends may share. */
    public io.netty.channel.EventLoopGroup eventLoops() {
        return resp.workerGroup();
    }

    @Override
    public Runnable holdOtherLoops(Object callerLoop, long maxMillis) {
        return LoopHold.holdOthers(resp.workerGroup(), callerLoop, maxMillis);
    }

    /** The TLS context from the current tls-* values; a failure is logged with its reason, as Redis does. */
    private ServerTls configureTls() throws ConfigException {
        try {
            return ServerTls.configure(config);
        } catch (ConfigException e) {
            Log.warning(e.getMessage());
            throw new ConfigException("Unable to update TLS configuration. Check server logs.");
        }
    }

    /**
     * Makes the listeners match port, tls-port and bind (configuring TLS first if it is wanted and was not
     * yet); on failure every listener is back as it was.
     */
    private synchronized void rebind(String error) throws ConfigException {
        List<String> addresses = Listeners.bindAddresses(config);
        int[] wanted = Listeners.wantedPorts(config);
        if (wanted[1] >= 0 && resp.tls() == null) { // as Redis: TLS is configured when first needed, then kept
            resp.tls(configureTls());
        }
        boolean sameAddresses = addresses.equals(boundAddresses);
        boolean plain = !sameAddresses || wanted[0] != requestedPort;
        boolean tls = !sameAddresses || wanted[1] != requestedTlsPort;
        int oldPlain = requestedPort < 0 ? -1 : port;
        int oldTls = requestedTlsPort < 0 ? -1 : tlsPort;
        try {
            int newPlain = plain ? resp.rebind(addresses, wanted[0], boundAddresses, oldPlain, false) : oldPlain;
            int newTls;
            try {
                newTls = tls ? resp.rebind(addresses, wanted[1], boundAddresses, oldTls, true) : oldTls;
            } catch (RuntimeException e) {
                if (plain) {
                    resp.rebind(boundAddresses, oldPlain, addresses, newPlain, false);
                }
                throw e;
            }
            port = Math.max(0, newPlain);
            tlsPort = Math.max(0, newTls);
            boundAddresses = addresses;
            requestedPort = wanted[0];
            requestedTlsPort = wanted[1];
        } catch (RuntimeException e) {
            Log.warning(error + ": " + e.getMessage());
            throw new ConfigException(error);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConfigException(error);
        }
    }

    /**
     * Starts a server with this configuration; returns once its dataset is loaded (clients are served, with
     * -LOADING, during the load). Throws {@link StartCancelled} when a client's SHUTDOWN stopped it meanwhile.
     */
    public static SpinelServer start(ServerConfig config) {
        return start(config, false);
    }

    /** {@link #start(ServerConfig)}; {@code signalHandlers}: the process's SIGTERM and SIGINT are the server's (the launcher). */
    public static SpinelServer start(ServerConfig config, boolean signalHandlers) {
        try {
            return new SpinelServer(config, signalHandlers);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting", e);
        }
    }

    /** Starts an in-memory server on a free port of 127.0.0.1, for tests. */
    public static SpinelServer startEphemeral() {
        return start(ServerConfig.defaults().with("port", "0"));
    }

    /** The plain RESP port; 0 when there is none ({@code port 0} with {@code tls-port} set). */
    @Override
    public int port() {
        return port;
    }

    /** The TLS port; 0 when TLS is off. */
    public int tlsPort() {
        return tlsPort;
    }

    @Override
    public ServerConfig config() {
        return config;
    }

    @Override
    public Engine engine() {
        return engine;
    }

    /** Replication: the master side's stream and replicas, the replica side's link (docs/replication.md). */
    @Override
    public Replication replication() {
        return replication;
    }

    @Override
    public MigrateSockets migrateSockets() {
        return migrateSockets;
    }

    @Override
    public ClusterMode cluster() {
        return cluster;
    }

    @Override
    public Scripting scripting() {
        return scripting;
    }

    /** Snapshots: SAVE/BGSAVE, the save schedule, INFO persistence, the final save at shutdown. */
    @Override
    public Persistence persistence() {
        return persistence;
    }

    /** The network transport of the RESP front end's event loops, which the gRPC service shares. */
    public IoTransport transport() {
        return resp.transport();
    }

    @Override
    public String multiplexingApi() {
        return resp.transport().word();
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
        engine.replicaRole().loading().abandon(); // a load in progress (SHUTDOWN while loading) stops at its next key
        if (crons != null) { // null: closed during the start-up load, before the crons
            crons.close();
        }
        migrateSockets.closeAll();
        replication.close();
        if (cluster != null) {
            cluster.close();
        }
        for (int i = extensions.size() - 1; i >= 0; i--) {
            try {
                extensions.get(i).close();
            } catch (Exception e) {
                Log.warning("stopping " + extensions.get(i) + ": " + e.getMessage());
            }
        }
        if (metrics != null) {
            metrics.close();
        }
        resp.close();
        persistence.close();
        // Last: the log is closed, so nothing of a script stopped half-way is logged; the script thread stops.
        scripting.abort();
        closed.countDown();
    }

    /**
     * SIGTERM: stops the server within seconds whatever its loops are doing (Redis 7.0 waits for a busy
     * script to end first). A running script that has not written is killed, as SCRIPT KILL would; one that
     * has written (or does not stop) is left behind: the final RDB snapshot is skipped then, since it would
     * hold half of the script. The loops get a bounded time to finish their command ({@link #close}), the
     * append-only log is flushed and synced (every acknowledged write is in it), and the final save, when
     * save points ask for one, waits a bounded time for the stripes. Returns when the server may exit.
     */
    public void terminate() {
        if (!isClosed()) {
            shutdownWait.awaitForSignal(); // shutdown-timeout: the replicas catch up first, as Redis 7.0
            if (!ScriptStop.stop(scripting)) {
                Log.warning("A script that wrote is still running: exiting without the final RDB snapshot,"
                        + " which would hold part of its writes");
                persistence.skipShutdownSave();
            }
            close();
        }
        persistence.saveOnShutdown();
    }

    @Override
    public ShutdownWait shutdownWait() {
        return shutdownWait;
    }

    /** Asks the server to stop from a command (SHUTDOWN); returns at once, the stop happens on another thread. */
    @Override
    public void shutdownAsync() {
        resp.stopAccepting(); // before the SHUTDOWN client's connection closes: a reconnect is refused at once
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
