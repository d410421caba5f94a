package dev.spinel.server.config;

import dev.spinel.store.types.CollectionSettings;
import dev.spinel.store.types.SetLimits;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The server's configuration: every parameter with its Redis name, default, and whether CONFIG SET
 * may change it. Built from a redis.conf-syntax file and/or redis-server style arguments
 * ({@code --port 7000}); in code, {@code ServerConfig.defaults().set("port", "0")}.
 *
 * The parameters are declared by role: the registry ({@link ConfigRegistry}), cluster mode's ({@link ClusterParams}),
 * the rest here.
 *
 * <p>Thread-safety: parameters are registered at construction; values are volatile, so readers on
 * any thread see a CONFIG SET at once.
 */
public final class ServerConfig extends ClusterParams {
    private Path configFile;
    private final Map<Param, Applier> appliers = new ConcurrentHashMap<>();

    /**
     * Makes a running server act on a parameter's new value (rebind on port/bind, reschedule on hz),
     * as Redis's config "apply" functions; throws with Redis's reason when that fails.
     */
    @FunctionalInterface
    public interface Applier {
        void apply() throws ConfigException;
    }

    public final Params.Int port = add(new Params.Int("port", true, 6379, 0, 65535, null));
    public final Params.Text bind = add(new Params.Text("bind", true, "127.0.0.1", v -> {
        if (!v.isEmpty() && v.split(" ", -1).length > 16) {
            throw new ConfigException("Too many bind addresses specified.");
        }
    }, null).words());
    public final Params.Bool protectedMode = add(new Params.Bool("protected-mode", true, true, null));
    public final Params.Text requirepass = add(new Params.Text("requirepass", true, "", null, null));
    /** ACL file of ACL LOAD/SAVE and the start (empty: none). */
    public final Params.Text aclfile = add(new Params.Text("aclfile", false, "", null, null));
    public final Params.Enum aclPubsubDefault = add(new Params.Enum("acl-pubsub-default", true, "resetchannels",
            List.of("allchannels", "resetchannels"), null));
    /** CLIENT TRACKING's table of tracked keys: past it, keys are dropped and invalidated (0: no limit). */
    public final Params.Int trackingTableMaxKeys = add(new Params.Int("tracking-table-max-keys", true, 1_000_000, 0,
            Long.MAX_VALUE, null));
    public final Params.Int acllogMaxLen = add(new Params.Int("acllog-max-len", true, 128, 0, Long.MAX_VALUE, null));
    /** The config file's {@code user <name> <rules...>} lines, checked when read and applied at the start. */
    private final List<List<String>> userDirectives = new ArrayList<>();
    /** The config's {@code rename-command from to} lines, checked when read and applied to the command table. */
    private final List<List<String>> commandRenames = new ArrayList<>();
    /**
     * Redis's hidden test knob: microseconds slept per key written by a save (BGSAVE, SAVE, an AOF rewrite's
     * base), so tests can keep a save running; negative: 1 µs with probability 1/|value|. Read when a save
     * starts, as Redis's forked child reads it once.
     */
    public final Params.Int rdbKeySaveDelay = add(new Params.Int("rdb-key-save-delay", true, 0, Integer.MIN_VALUE,
            Integer.MAX_VALUE, null)).hide();
    public final Params.Int databases = add(new Params.Int("databases", false, 16, 1, Integer.MAX_VALUE, null));
    /** An unsigned int in Redis (1..UINT_MAX), hence the bound its range error names. */
    public final Params.Int maxclients = add(new Params.Int("maxclients", true, 10000, 1, 4294967295L, null));
    public final Params.Int timeout = add(new Params.Int("timeout", true, 0, 0, Integer.MAX_VALUE, null));
    public final Params.Int tcpKeepalive = add(new Params.Int("tcp-keepalive", true, 300, 0, Integer.MAX_VALUE, null));
    public final Params.Int tcpBacklog = add(new Params.Int("tcp-backlog", false, 511, 0, Integer.MAX_VALUE, null));
    public final Params.Memory protoMaxBulkLen = add(Params.Memory.bounded("proto-max-bulk-len", true, 512L * 1024 * 1024, 1024 * 1024, Long.MAX_VALUE));
    public final Params.Memory clientQueryBufferLimit = add(Params.Memory.bounded("client-query-buffer-limit", true, 1024L * 1024 * 1024, 1024 * 1024, Long.MAX_VALUE));
    /** Redis stores hz clamped to 1..500 and CONFIG GET shows the clamped value. */
    public final Params.Int hz = add(new Params.Int("hz", true, 10, 0, Integer.MAX_VALUE, null)
            .normalized(v -> Math.max(1, Math.min(500, v))));
    public final Params.Enum loglevel = add(new Params.Enum("loglevel", true, "notice",
            List.of("debug", "verbose", "notice", "warning"), null));
    public final Params.Text logfile = add(new Params.Text("logfile", false, "", null, null));
    public final DirParam dir = add(new DirParam());
    public final Params.Text dbfilename = add(new Params.Text("dbfilename", true, "dump.rdb",
            v -> baseName(v, "dbfilename can't be a path, just a filename"), null));
    /** Snapshot points. Spinel's default is none (Redis's is 3600 1 300 100 60 10000) until snapshots exist. */
    public final SaveParam save = add(new SaveParam());
    public final Params.Bool stopWritesOnBgsaveError = add(new Params.Bool("stop-writes-on-bgsave-error", true, true, null));
    public final Params.Bool rdbcompression = add(new Params.Bool("rdbcompression", true, true, null));
    public final Params.Bool rdbchecksum = add(new Params.Bool("rdbchecksum", false, true, null));
    public final Params.Bool appendonly = add(new Params.Bool("appendonly", true, false, null));
    public final Params.Enum appendfsync = add(new Params.Enum("appendfsync", true, "everysec",
            List.of("everysec", "always", "no"), null));
    public final Params.Text appendfilename = add(new Params.Text("appendfilename", false, "appendonly.aof",
            v -> baseName(v, "appendfilename can't be a path, just a filename"), null));
    public final Params.Text appenddirname = add(new Params.Text("appenddirname", false, "appendonlydir",
            v -> baseName(v, "appenddirname can't be a path, just a dirname"), null));
    public final Params.Int autoAofRewritePercentage = add(new Params.Int("auto-aof-rewrite-percentage", true, 100, 0, Integer.MAX_VALUE, null));
    public final Params.Memory autoAofRewriteMinSize = add(new Params.Memory("auto-aof-rewrite-min-size", true, 64L * 1024 * 1024, Long.MAX_VALUE, null));
    public final Params.Bool aofLoadTruncated = add(new Params.Bool("aof-load-truncated", true, true, null));
    public final Params.Bool aofUseRdbPreamble = add(new Params.Bool("aof-use-rdb-preamble", true, true, null));
    public final Params.Bool aofTimestampEnabled = add(new Params.Bool("aof-timestamp-enabled", true, false, null));
    /** Keeps the files a rewrite replaces, listed as history ('h') in the manifest, until set back to no. */
    public final Params.Bool aofDisableAutoGc = add(new Params.Bool("aof-disable-auto-gc", true, false, null));
    public final Params.Memory maxmemory = add(Params.Memory.unsigned("maxmemory", true, 0));
    public final Params.Enum maxmemoryPolicy = add(new Params.Enum("maxmemory-policy", true, "noeviction",
            List.of("volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl", "allkeys-lru", "allkeys-lfu",
                    "allkeys-random", "noeviction"), null));
    public final Params.Int maxmemorySamples = add(new Params.Int("maxmemory-samples", true, 5, 1, Integer.MAX_VALUE, null));
    public final Params.Int lfuLogFactor = add(new Params.Int("lfu-log-factor", true, 10, 0, Integer.MAX_VALUE, null));
    public final Params.Int lfuDecayTime = add(new Params.Int("lfu-decay-time", true, 1, 0, Integer.MAX_VALUE, null));
    public final Params.Bool lazyfreeLazyEviction = add(new Params.Bool("lazyfree-lazy-eviction", true, false, null));
    public final Params.Bool lazyfreeLazyExpire = add(new Params.Bool("lazyfree-lazy-expire", true, false, null));
    public final Params.Bool lazyfreeLazyServerDel = add(new Params.Bool("lazyfree-lazy-server-del", true, false, null));
    public final Params.Bool lazyfreeLazyUserDel = add(new Params.Bool("lazyfree-lazy-user-del", true, false, null));
    public final Params.Bool lazyfreeLazyUserFlush = add(new Params.Bool("lazyfree-lazy-user-flush", true, false, null));
    public final NotifyEventsParam notifyKeyspaceEvents = add(new NotifyEventsParam());
    public final Params.Int slowlogLogSlowerThan = add(new Params.Int("slowlog-log-slower-than", true, 10000, -1, Long.MAX_VALUE, null));
    public final Params.Int slowlogMaxLen = add(new Params.Int("slowlog-max-len", true, 128, 0, Long.MAX_VALUE, null));
    /** Milliseconds a script runs before other clients get BUSY and SCRIPT KILL may stop it (Redis 7.0). */
    public final Params.Int busyReplyThreshold = add(new Params.Int("busy-reply-threshold", true, 5000, 0, Long.MAX_VALUE, null, "lua-time-limit"));
    /** Per-command latency histograms (LATENCY HISTOGRAM, INFO latencystats) and the percentiles INFO shows. */
    public final Params.Bool latencyTracking = add(new Params.Bool("latency-tracking", true, true, null));
    public final Param latencyTrackingInfoPercentiles = add(new CompatParams.Canonical("latency-tracking-info-percentiles",
            true, "50 99 99.9", CompatParams::percentiles));
    public final Params.Int latencyMonitorThreshold = add(new Params.Int("latency-monitor-threshold", true, 0, 0, Long.MAX_VALUE, null));
    // Encoding thresholds: the collection types read them to pick compact or big encodings.
    public final Params.Int listMaxListpackSize = add(new Params.Int("list-max-listpack-size", true, -2,
            Integer.MIN_VALUE, Integer.MAX_VALUE, null, "list-max-ziplist-size"));
    public final Params.Int listCompressDepth = add(new Params.Int("list-compress-depth", true, 0, 0, Integer.MAX_VALUE, null));
    public final Params.Int hashMaxListpackEntries = add(new Params.Int("hash-max-listpack-entries", true, 512, 0,
            Long.MAX_VALUE, null, "hash-max-ziplist-entries"));
    /** A memory value in Redis (size_t, MEMORY_CONFIG): "1k" is accepted, "-1" is "not a memory value". */
    public final Params.Memory hashMaxListpackValue = add(new Params.Memory("hash-max-listpack-value", true, 64,
            Long.MAX_VALUE, null, "hash-max-ziplist-value"));
    public final Params.Memory streamNodeMaxBytes = add(new Params.Memory("stream-node-max-bytes", true, 4096, Long.MAX_VALUE, null));
    public final Params.Int streamNodeMaxEntries = add(new Params.Int("stream-node-max-entries", true, 100, 0, Long.MAX_VALUE, null));
    public final Params.Memory hllSparseMaxBytes = add(new Params.Memory("hll-sparse-max-bytes", true, 3000, Long.MAX_VALUE, null));
    public final OutputBufferLimitsParam clientOutputBufferLimit = add(new OutputBufferLimitsParam());
    public final Params.Bool replicaReadOnly = add(new Params.Bool("replica-read-only", true, true, null, "slave-read-only"));
    /** A full resync's connection to its replica sends without TCP_NODELAY (fewer packets, more delay), as Redis's. */
    public final Params.Bool replDisableTcpNodelay = add(new Params.Bool("repl-disable-tcp-nodelay", true, false, null));
    /** A replica's full resync counts the keys it drops as freed in the background (INFO lazyfreed_objects), as Redis's. */
    public final Params.Bool replicaLazyFlush = add(new Params.Bool("replica-lazy-flush", true, false, null, "slave-lazy-flush"));
    /** A replica evicts nothing for maxmemory (its master's DELs keep it an exact copy) unless this is off, as Redis's. */
    public final Params.Bool replicaIgnoreMaxmemory = add(new Params.Bool("replica-ignore-maxmemory", true, true, null,
            "slave-ignore-maxmemory"));
    // Replication (docs/replication.md)
    /** {@code replicaof <host> <port>} at start ("" for a master); REPLICAOF changes the role at run time. */
    public final Params.Text replicaof = add(new Params.Text("replicaof", false, "", v -> {
        if (!v.isEmpty()) {
            String[] hp = v.trim().split("\\s+");
            if (hp.length != 2) {
                throw new ConfigException("wrong number of arguments");
            }
            try {
                int port = Integer.parseInt(hp[1]);
                if (port < 0 || port > 65535) {
                    throw new ConfigException("Invalid master port");
                }
            } catch (NumberFormatException e) {
                throw new ConfigException("Invalid master port");
            }
        }
    }, null, "slaveof").words());
    public final Params.Text masterauth = add(new Params.Text("masterauth", true, "", null, null));
    public final Params.Text masteruser = add(new Params.Text("masteruser", true, "", null, null));
    public final Params.Memory replBacklogSize = add(Params.Memory.bounded("repl-backlog-size", true, 1L << 20, 1, Long.MAX_VALUE));
    public final Params.Int replBacklogTtl = add(new Params.Int("repl-backlog-ttl", true, 3600, 0, Integer.MAX_VALUE, null));
    public final Params.Int replPingReplicaPeriod = add(new Params.Int("repl-ping-replica-period", true, 10, 1, Integer.MAX_VALUE, null, "repl-ping-slave-period"));
    public final Params.Int replTimeout = add(new Params.Int("repl-timeout", true, 60, 1, Integer.MAX_VALUE, null));
    public final Params.Int minReplicasToWrite = add(new Params.Int("min-replicas-to-write", true, 0, 0, Integer.MAX_VALUE, null, "min-slaves-to-write"));
    public final Params.Int minReplicasMaxLag = add(new Params.Int("min-replicas-max-lag", true, 10, 0, Integer.MAX_VALUE, null, "min-slaves-max-lag"));
    public final Params.Bool replicaServeStaleData = add(new Params.Bool("replica-serve-stale-data", true, true, null, "slave-serve-stale-data"));
    /** Full resyncs sent {@code $EOF:<mark>}-framed to replicas that say capa eof (the RDB is made in memory either way). */
    public final Params.Bool replDisklessSync = add(new Params.Bool("repl-diskless-sync", true, true, null));
    public final Params.Int replDisklessSyncDelay = add(new Params.Int("repl-diskless-sync-delay", true, 5, 0, Integer.MAX_VALUE, null));
    public final Params.Int replDisklessSyncMaxReplicas = add(new Params.Int("repl-diskless-sync-max-replicas", true, 0, 0, Integer.MAX_VALUE, null));
    public final Params.Int replicaPriority = add(new Params.Int("replica-priority", true, 100, 0, Integer.MAX_VALUE, null, "slave-priority"));
    /** The address a replica gives its master (REPLCONF ip-address) instead of the one the master sees; empty: none. */
    public final Params.Text replicaAnnounceIp = add(new Params.Text("replica-announce-ip", true, "", null, null, "slave-announce-ip"));
    /** The port a replica gives its master (REPLCONF listening-port); 0: the port it listens on. */
    public final Params.Int replicaAnnouncePort = add(new Params.Int("replica-announce-port", true, 0, 0, 65535, null, "slave-announce-port"));
    /** Whether Sentinel should list this replica (INFO's replica_announced). */
    public final Params.Bool replicaAnnounced = add(new Params.Bool("replica-announced", true, true, null));
    /**
     * How a replica loads a full resync's RDB (Redis 7.0): {@code disabled} reads it whole before touching the
     * dataset; {@code swapdb} likewise, the old dataset serving reads until the new one is loaded and kept if the
     * load fails; {@code on-empty-db} loads while it arrives when the dataset is empty, else as disabled.
     */
    public final Params.Enum replDisklessLoad = add(new Params.Enum("repl-diskless-load", true, "disabled",
            List.of("disabled", "on-empty-db", "swapdb"), null));
    /** Accepted for redis.conf compatibility: Spinel's threads are its event loops (event-loop-threads). */
    public final Params.Int ioThreads = add(new Params.Int("io-threads", false, 1, 1, 128, null));
    public final Params.Bool ioThreadsDoReads = add(new Params.Bool("io-threads-do-reads", false, false, null));
    /**
     * Redis's hidden test knob: a pause of this many microseconds per key loaded from an RDB file and per command
     * replayed from the append-only log (negative: a 1 µs pause once in that many, on average), to make loading slow.
     */
    public final Params.Int keyLoadDelay = add(new Params.Int("key-load-delay", true, 0, Integer.MIN_VALUE,
            Integer.MAX_VALUE, null)).hide();
    /**
     * Redis's {@code server.aof_flush_sleep}, set by DEBUG AOF-FLUSH-SLEEP (a test knob, not a parameter):
     * microseconds the append-only log sleeps before each write to its file, so tests can watch replies wait for it.
     */
    public volatile int aofFlushSleepMicros;
    /** Redis's {@code server.skip_checksum_validation}, set by DEBUG SET-SKIP-CHECKSUM-VALIDATION: RESTORE leaves the CRC unchecked. */
    public volatile boolean skipChecksumValidation;
    /** Only "no" can start: a JVM cannot fork itself into the background (see {@link #checkStartable()}). */
    public final Params.Bool daemonize = add(new Params.Bool("daemonize", false, false, null));
    public final Params.Enum supervised = add(new Params.Enum("supervised", false, "no",
            List.of("upstart", "systemd", "auto", "no"), null));
    /** Written by the launcher at start and removed at shutdown. */
    public final Params.Text pidfile = add(new Params.Text("pidfile", false, "", null, null));
    /** Only "" can start: Spinel listens on TCP only. */
    public final Params.Text unixsocket = add(new Params.Text("unixsocket", false, "", null, null));
    public final Params.Enum enableProtectedConfigs = add(new Params.Enum("enable-protected-configs", false, "no",
            List.of("no", "yes", "local"), null));
    public final Params.Enum enableDebugCommand = add(new Params.Enum("enable-debug-command", false, "no",
            List.of("no", "yes", "local"), null));
    /** Who may run MODULE LOAD/LOADEX/UNLOAD (Spinel loads no Redis modules: allowed, they fail as a bad module does). */
    public final Params.Enum enableModuleCommand = add(new Params.Enum("enable-module-command", false, "no",
            List.of("no", "yes", "local"), null));
    /** Spinel's own: Netty event loops; 0 means one per core. */
    public final Params.Int eventLoopThreads = add(new Params.Int("event-loop-threads", false, 0, 0, 1024, null));
    /** Spinel's own: the network transport (dev.spinel.server.net.IoTransport); unavailable ones fall back. */
    public final Params.Enum ioTransport = add(new Params.Enum("io-transport", false, "auto",
            List.of("auto", "epoll", "io_uring", "nio"), null));
    /**
     * Spinel's own: on io_uring, replies leave as one send queued from the loop (dev.spinel.server.net.UringSend)
     * rather than through Netty's write path; no effect on the other transports.
     */
    public final Params.Bool ioUringDirectSend = add(new Params.Bool("io-uring-direct-send", false, true, null));
    /** Spinel's own: io_uring rings set up for their loop's thread alone (SINGLE_ISSUER, DEFER_TASKRUN). */
    public final Params.Bool ioUringSingleIssuer = add(new Params.Bool("io-uring-single-issuer", false, true, null));

    /** The encoding thresholds as the store's types read them (live: CONFIG SET applies to the next write). */
    public final CollectionSettings collectionSettings = new CollectionSettings() {
        @Override
        public long listMaxListpackSize() {
            return listMaxListpackSize.value();
        }

        @Override
        public long hashMaxListpackEntries() {
            return hashMaxListpackEntries.value();
        }

        @Override
        public long hashMaxListpackValue() {
            return hashMaxListpackValue.value();
        }

        @Override
        public long streamNodeMaxBytes() {
            return streamNodeMaxBytes.value();
        }

        @Override
        public long streamNodeMaxEntries() {
            return streamNodeMaxEntries.value();
        }
    };

    /** Thresholds handed to the store's set and sorted-set types; updated by the parameters below. */
    public final SetLimits setLimits = new SetLimits();
    public final Params.Int setMaxIntsetEntries = add(new Params.Int("set-max-intset-entries", true, 512, 0,
            Long.MAX_VALUE, setLimits::setMaxIntsetEntries));
    public final Params.Int zsetMaxListpackEntries = add(new Params.Int("zset-max-listpack-entries", true, 128, 0,
            Long.MAX_VALUE, setLimits::zsetMaxListpackEntries, "zset-max-ziplist-entries"));
    public final Params.Memory zsetMaxListpackValue = add(new Params.Memory("zset-max-listpack-value", true, 64,
            Long.MAX_VALUE, setLimits::zsetMaxListpackValue, "zset-max-ziplist-value"));
    // ---- gRPC front end (module spinel-grpc; ignored when that module is not on the class path).
    /** Port of the gRPC key-value service; 0 disables it. */
    public final Params.Int grpcPort = add(new Params.Int("grpc-port", false, 50051, 0, 65535, null));
    /** Address the gRPC service listens on. */
    public final Params.Text grpcBind = add(new Params.Text("grpc-bind", false, "127.0.0.1", null, null));
    /** Largest gRPC message accepted; larger ones fail with RESOURCE_EXHAUSTED. */
    public final Params.Memory grpcMaxMessageSize = add(Params.Memory.bounded("grpc-max-message-size", false,
            4L * 1024 * 1024, 1024, Integer.MAX_VALUE));
    // ---- end gRPC
    // ---- Prometheus metrics endpoint (dev.spinel.server.metrics); CONFIG SET starts, moves or stops it.
    /** Port of the HTTP endpoint serving /metrics in Prometheus's text format; 0 (the default) disables it. */
    public final Params.Int metricsPort = add(new Params.Int("metrics-port", true, 0, 0, 65535, null));
    /** Address the metrics endpoint listens on. */
    public final Params.Text metricsBind = add(new Params.Text("metrics-bind", true, "127.0.0.1", null, null));
    // ---- end metrics
    // ---- TLS, as Redis 7.0's (net.ServerTls builds the context; every one may change at run time, see SpinelServer).
    /** Port of the TLS listener; 0 (the default) disables it. With it set, {@code port 0} means no plain listener. */
    public final Params.Int tlsPort = add(new Params.Int("tls-port", true, 0, 0, 65535, null));
    public final Params.Text tlsCertFile = add(new Params.Text("tls-cert-file", true, "", null, null));
    public final Params.Text tlsKeyFile = add(new Params.Text("tls-key-file", true, "", null, null));
    public final Params.Text tlsKeyFilePass = add(new Params.Text("tls-key-file-pass", true, "", null, null));
    /** The certificate of outgoing TLS connections (a replica's link, MIGRATE); unset, tls-cert-file's (Redis 7.0). */
    public final Params.Text tlsClientCertFile = add(new Params.Text("tls-client-cert-file", true, "", null, null));
    public final Params.Text tlsClientKeyFile = add(new Params.Text("tls-client-key-file", true, "", null, null));
    public final Params.Text tlsClientKeyFilePass = add(new Params.Text("tls-client-key-file-pass", true, "", null, null));
    public final Params.Text tlsCaCertFile = add(new Params.Text("tls-ca-cert-file", true, "", null, null));
    public final Params.Text tlsCaCertDir = add(new Params.Text("tls-ca-cert-dir", true, "", null, null));
    /** Whether TLS clients must present a certificate the CAs signed: yes, no, or optional (checked when given). */
    public final Params.Enum tlsAuthClients = add(new Params.Enum("tls-auth-clients", true, "yes",
            List.of("no", "yes", "optional"), null));
    public final Params.Text tlsProtocols = add(new Params.Text("tls-protocols", true, "", null, null));
    public final Params.Text tlsCiphers = add(new Params.Text("tls-ciphers", true, "", null, null));
    public final Params.Text tlsCiphersuites = add(new Params.Text("tls-ciphersuites", true, "", null, null));
    public final Params.Bool tlsPreferServerCiphers = add(new Params.Bool("tls-prefer-server-ciphers", true, false, null));
    /** A replica's link to its master over TLS (the server's certificate as the client's, its CAs to check the master's). */
    public final Params.Bool tlsReplication = add(new Params.Bool("tls-replication", true, false, null));
    // ---- end TLS

    {
        CompatParams.register(this);
    }

    /** The parameters a TLS context is built from: CONFIG SET of any of them rebuilds it (Redis's applyTlsCfg). */
    public List<Param> tlsContextParams() {
        return List.of(tlsCertFile, tlsKeyFile, tlsKeyFilePass, tlsClientCertFile, tlsClientKeyFile, tlsClientKeyFilePass,
                tlsCaCertFile, tlsCaCertDir, tlsProtocols, tlsCiphers, tlsCiphersuites, tlsPreferServerCiphers);
    }

    public static ServerConfig defaults() {
        return new ServerConfig();
    }

    /** Sets a parameter by name, as a config-file directive or CONFIG SET would. */
    public ServerConfig set(String name, String value) throws ConfigException {
        Param p = param(name);
        if (p == null) {
            throw new ConfigException("Bad directive or wrong number of arguments");
        }
        p.set(value);
        return this;
    }

    /** Unchecked variant of {@link #set} for code that builds a config (tests, embedding). */
    public ServerConfig with(String name, String value) {
        try {
            return set(name, value);
        } catch (ConfigException e) {
            throw new IllegalArgumentException(name + ": " + e.getMessage(), e);
        }
    }

    /** Registers what the running server does when CONFIG SET changes {@code p}; one applier may serve several. */
    public void onApply(Param p, Applier applier) {
        appliers.put(p, applier);
    }

    /** The applier of a parameter, or {@code null} when its new value needs no action beyond being stored. */
    public Applier applier(Param p) {
        return appliers.get(p);
    }

    public Path configFile() {
        return configFile;
    }

    /** The configuration file read at start (absolute), set by {@link ConfigLoader#fromArgs}. */
    void configFile(Path file) {
        this.configFile = file;
    }

    /** Spinel's own start-time parameters, which Redis has not (event loops, transport, gRPC). */
    public boolean isSpinelOwn(Param p) {
        return p == eventLoopThreads || p == ioTransport || p == ioUringDirectSend || p == ioUringSingleIssuer
                || p == grpcPort || p == grpcBind || p == grpcMaxMessageSize;
    }

    /** Parameters CONFIG SET refuses with -LOADING while a replica loads its master's dataset (Redis's DENY_LOADING_CONFIG). */
    public boolean isDeniedWhileLoading(Param p) {
        return p == appendonly || p == replDisklessLoad || p == dir;
    }

    /** Parameters Redis 7.0 guards with enable-protected-configs (they can redirect file writes). */
    public boolean isProtected(Param p) {
        return p == dir || p == dbfilename;
    }

    /**
     * Refuses what Spinel cannot do at start, with the reason: daemonizing, unix sockets, cluster
     * systemd/upstart supervision. Called by the launcher after parsing.
     */
    public void checkStartable() throws ConfigException {
        if (daemonize.value()) {
            throw new ConfigException("daemonize yes is not supported: a JVM cannot fork into the background. "
                    + "Run spinel-server under a supervisor (systemd Type=simple, docker) or with nohup, and keep 'daemonize no'.");
        }
        if (!unixsocket.value().isEmpty()) {
            throw new ConfigException("unixsocket is not supported: Spinel listens on TCP only. Remove the unixsocket directive.");
        }
        boolean underSystemd = System.getenv("NOTIFY_SOCKET") != null;
        if (supervised.value().equals("systemd") || supervised.value().equals("upstart")
                || (supervised.value().equals("auto") && underSystemd)) {
            throw new ConfigException("supervised " + supervised.value() + " is not supported: Spinel does not notify "
                    + "the supervisor. Use 'supervised no' with a simple (non-notify) service type.");
        }
    }

    /**
     * Builds a configuration the way {@code redis-server} reads its command line: an optional config
     * file first, then {@code --name value...} options appended after it (later wins). Options'
     * values are quoted as Redis's {@code sdscatrepr} does, so error lines look like Redis's.
     */
    public static ServerConfig fromArgs(String[] args) throws ConfigException, IOException {
        return fromArgs(args, System.in);
    }

    /** {@link #fromArgs(String[])} with the stream that {@code -} (config from stdin) reads. */
    public static ServerConfig fromArgs(String[] args, InputStream stdin) throws ConfigException, IOException {
        return ConfigLoader.fromArgs(args, stdin);
    }

    /** Applies redis.conf-syntax text; the first bad line stops loading with its number and reason. */
    public void load(String text) throws ConfigException {
        new ConfigLoader(this).load(text, 0);
    }

    /** The {@code rename-command} directives of the configuration, in order (each: the name, the new name). */
    public List<List<String>> commandRenames() {
        return commandRenames;
    }

    /** The {@code user} directives of the configuration, in order (each: name, then rules). */
    public List<List<String>> userDirectives() {
        return userDirectives;
    }

    private static void baseName(String v, String error) throws ConfigException {
        if (v.indexOf('/') >= 0) {
            throw new ConfigException(error);
        }
    }
}
