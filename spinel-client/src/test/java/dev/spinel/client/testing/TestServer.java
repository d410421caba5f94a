package dev.spinel.client.testing;

import dev.spinel.server.testing.RedisServerProcess;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;

import java.io.IOException;
import java.net.ServerSocket;

/**
 * A server the client tests run against: an embedded Spinel or a real redis-server, on a port of the
 * client's test range (7800-7899) so that {@link #restart} can bring it back on the same port.
 * Not thread-safe (one test drives it).
 */
public abstract class TestServer implements AutoCloseable {
    protected final int port;
    protected final String[] config;

    protected TestServer(String... config) {
        this.port = freePortInRange();
        this.config = config;
    }

    public static TestServer spinel(String... config) {
        return new TestServer(config) {
            private SpinelServer server = start();

            private SpinelServer start() {
                ServerConfig c = ServerConfig.defaults().with("port", Integer.toString(port));
                for (int i = 0; i + 1 < config.length; i += 2) {
                    c = c.with(config[i].replaceFirst("^--", ""), config[i + 1]);
                }
                return SpinelServer.start(c);
            }

            @Override
            public void stop() {
                server.close();
            }

            @Override
            public void startAgain() {
                server = start();
            }

            @Override
            public String name() {
                return "spinel";
            }
        };
    }

    public static TestServer redis(String... config) {
        return new TestServer(config) {
            private RedisServerProcess server = RedisServerProcess.startOn(port, config);

            @Override
            public void stop() {
                server.close();
            }

            @Override
            public void startAgain() {
                server = RedisServerProcess.startOn(port, config);
            }

            @Override
            public String name() {
                return "redis";
            }
        };
    }

    public abstract void stop();

    public abstract void startAgain();

    public abstract String name();

    public int port() {
        return port;
    }

    public String uri() {
        return "redis://127.0.0.1:" + port;
    }

    public void restart() {
        stop();
        startAgain();
    }

    @Override
    public void close() {
        stop();
    }

    private static int next = 7800 + (int) (ProcessHandle.current().pid() % 50);

    private static synchronized int freePortInRange() {
        for (int i = 0; i < 100; i++) {
            int p = 7800 + (next++ - 7800) % 100;
            try (ServerSocket s = new ServerSocket(p)) {
                s.setReuseAddress(true);
                return p;
            } catch (IOException inUse) {
                // try the next one
            }
        }
        throw new IllegalStateException("no free port in 7800-7899");
    }
}
