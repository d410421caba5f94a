package dev.spinel.server.testing;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real {@code redis-server} (from the system's package) on a free port, in a temporary directory,
 * for differential tests and the client's integration tests ({@link #startOn} takes a fixed port, so a
 * test can restart the server where a client reconnects). {@code .ci/run} installs it; without it, differential tests fail loudly
 * rather than pass by skipping.
 */
public final class RedisServerProcess implements AutoCloseable {
    private final Process process;
    private final int port;
    private final Path dir;

    private RedisServerProcess(Process process, int port, Path dir) {
        this.process = process;
        this.port = port;
        this.dir = dir;
    }

    /**
     * On a free port. The port is free when {@link #freePort} returns, not necessarily when redis-server binds it
     * (another process, e.g. the other surefire fork, may take it meanwhile): redis-server then exits saying so, and
     * the start is tried again on another port.
     */
    public static RedisServerProcess start(String... extraArgs) {
        for (int attempt = 1; ; attempt++) {
            try {
                return startOn(freePort(), extraArgs);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            } catch (IllegalStateException e) {
                if (attempt == 3 || e.getMessage() == null || !e.getMessage().contains("Address already in use")) {
                    throw e;
                }
            }
        }
    }

    /** Starts redis-server on the given port. */
    public static RedisServerProcess startOn(int port, String... extraArgs) {
        try {
            Path dir = Files.createTempDirectory("redis-test");
            List<String> cmd = new ArrayList<>(List.of(executable(), "--port", Integer.toString(port), "--bind", "127.0.0.1",
                    "--save", "", "--appendonly", "no", "--dir", dir.toString(), "--daemonize", "no", "--loglevel", "warning"));
            cmd.addAll(List.of(extraArgs));
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
                    .redirectOutput(dir.resolve("redis.log").toFile()).start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (System.nanoTime() < deadline) {
                try (Socket s = new Socket("127.0.0.1", port)) {
                    return new RedisServerProcess(p, port, dir);
                } catch (IOException notYet) {
                    if (!p.isAlive()) {
                        throw new IllegalStateException("redis-server exited: " + Files.readString(dir.resolve("redis.log")));
                    }
                    Thread.sleep(20);
                }
            }
            p.destroyForcibly();
            throw new IllegalStateException("redis-server did not start on port " + port);
        } catch (IOException e) {
            throw new IllegalStateException("cannot start redis-server (install it: apt-get install redis-server): " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    public static String executable() {
        for (String candidate : List.of("/usr/bin/redis-server", "/usr/local/bin/redis-server")) {
            if (Files.isExecutable(Path.of(candidate))) {
                return candidate;
            }
        }
        return "redis-server";
    }

    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            s.setReuseAddress(true);
            return s.getLocalPort();
        }
    }

    public int port() {
        return port;
    }

    public Path dir() {
        return dir;
    }

    /** The process id (to stop and continue it with signals). */
    public long pid() {
        return process.pid();
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
