package dev.spinel.server;

import dev.spinel.protocol.Version;
import dev.spinel.server.config.ConfigException;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.log.Log;
import io.netty.util.internal.logging.InternalLoggerFactory;
import io.netty.util.internal.logging.JdkLoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The {@code spinel-server} launcher: {@code spinel-server [/path/spinel.conf] [--name value ...]},
 * exactly as {@code redis-server} takes its arguments. A bad directive stops the start with the
 * line and the reason.
 */
public final class Main {
    private Main() {
    }

    /** redis-server's usage text, less what Spinel has not (memory test, system check, Sentinel). */
    static final String USAGE = """
            Usage: ./spinel-server [/path/to/spinel.conf] [options] [-]
                   ./spinel-server - (read config from stdin)
                   ./spinel-server -v or --version
                   ./spinel-server -h or --help

            Examples:
                   ./spinel-server (run the server with default conf)
                   echo 'maxmemory 128mb' | ./spinel-server -
                   ./spinel-server /etc/spinel/spinel.conf
                   ./spinel-server --port 7777
                   ./spinel-server --port 7777 --metrics-port 9121
                   ./spinel-server /etc/myspinel.conf --loglevel verbose -
                   ./spinel-server /etc/myspinel.conf --loglevel verbose

            Options are redis.conf directives (and Spinel's own: event-loop-threads, io-transport, grpc-*, metrics-*)
            prefixed with --. JVM options go in SPINEL_JAVA_OPTS.
            """;

    public static void main(String[] args) throws InterruptedException {
        // Netty would probe SLF4J first (slf4j-api comes with Ratis, without a binding: a scan of every jar for one,
        // three "SLF4J: Failed to load class" lines on stderr at each start, then its fallback to the JDK's logging
        // anyway). Set before any Netty class logs.
        InternalLoggerFactory.setDefaultFactory(JdkLoggerFactory.INSTANCE);
        if (args.length == 1 && (args[0].equals("-v") || args[0].equals("--version"))) {
            System.out.println("Spinel server v=" + Version.SPINEL + " redis_version=" + Version.REDIS);
            return;
        }
        if (args.length == 1 && (args[0].equals("-h") || args[0].equals("--help"))) {
            System.err.print(USAGE); // as redis-server: the usage on stderr, exit status 1
            System.exit(1);
            return;
        }
        ServerConfig config;
        try {
            config = ServerConfig.fromArgs(args);
            config.checkStartable();
        } catch (ConfigException e) {
            System.err.println(e.getMessage());
            System.exit(1);
            return;
        } catch (IOException e) {
            System.err.println("Fatal error, can't open config file '" + args[0] + "': " + e.getMessage());
            System.exit(1);
            return;
        }
        // Relative names are under `dir`, as Redis's: it chdir()s there while reading its configuration, and the JVM
        // cannot (DirParam), so a relative logfile or pidfile is resolved against `dir` here.
        String logfile = config.logfile.value();
        Log.configure(logfile.isEmpty() ? logfile : config.dir.path().resolve(logfile).toString(), config.loglevel.value());
        Log.notice("Spinel " + Version.SPINEL + " (Redis " + Version.REDIS + " compatible) starting, pid="
                + ProcessHandle.current().pid());
        Path pidfile = writePidfile(config.dir.path(), config.pidfile.value()); // before the load, as Redis
        SpinelServer server;
        try {
            server = SpinelServer.start(config, true);
        } catch (StartCancelled e) { // SHUTDOWN or a signal during the start-up load: nothing to save, status 0 as Redis
            removePidfile(pidfile);
            Log.warning("Spinel is now ready to exit, bye bye...");
            System.exit(0);
            return;
        } catch (RuntimeException e) {
            for (String line : String.valueOf(e.getMessage()).split("\\R")) { // one log line each, as Redis's
                Log.warning(line);
            }
            System.exit(1);
            return;
        }
        // Any other exit of the JVM (SHUTDOWN's, SIGHUP, the signals' last resort) ends here: bounded, data safe first.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            if (!server.isClosed()) {
                Log.warning("Received shutdown signal, scheduling shutdown...");
            }
            server.terminate(); // bounded: a stuck loop or script does not keep the process alive
            removePidfile(pidfile);
            Log.warning("Spinel is now ready to exit, bye bye...");
        }, "spinel-sigterm"));
        if (!Boolean.getBoolean("spinel.fixedHeapLimit") && HeapSizer.install()) {
            // Start-up garbage (class loading, the command table, gRPC) is freed once, so the heap's soft limit starts
            // from the server's real baseline; with ZGC a concurrent cycle, no long pause.
            System.gc();
        }
        Log.notice("Server initialized, transport=" + server.transport().word());
        if (server.port() != 0) {
            Log.notice("Ready to accept connections tcp on port " + server.port());
        }
        if (server.tlsPort() != 0) {
            Log.notice("Ready to accept connections tls on port " + server.tlsPort());
        }
        server.awaitClose();
        // SHUTDOWN closed the server: leave with status 0 (the hook removes the pid file).
        System.exit(0);
    }

    /** Writes the pid file when one is configured; a failure is logged, not fatal (as in Redis). */
    private static Path writePidfile(Path dir, String file) {
        if (file.isEmpty()) {
            return null;
        }
        Path p = dir.resolve(file);
        try {
            Files.writeString(p, ProcessHandle.current().pid() + "\n");
            return p;
        } catch (IOException e) {
            Log.warning("Failed to write PID file: " + e.getMessage());
            return null;
        }
    }

    private static void removePidfile(Path p) {
        if (p != null) {
            Log.notice("Removing the pid file.");
            try {
                Files.deleteIfExists(p);
            } catch (IOException e) {
                Log.warning("Failed to remove PID file: " + e.getMessage());
            }
        }
    }
}
