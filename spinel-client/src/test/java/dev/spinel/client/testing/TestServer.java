package dev.spinel.client.testing;

import dev.spinel.client.TlsOptions;
import dev.spinel.server.testing.RedisServerProcess;
import dev.spinel.server.testing.TestCertificates;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;

import java.io.IOException;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/**
 * A server the client tests run against: an embedded Spinel or a real redis-server, on a port of the
 * client's test range (7800-7899) so that {@link #restart} can bring it back on the same port. The TLS
 * variants ({@link #spinelTls}, {@link #redisTls}) listen with TLS only on that port ({@code --port 0
 * --tls-port N}, the certificates of {@link TestCertificates}). Not thread-safe (one test drives it).
 */
public abstract class TestServer implements AutoCloseable {
    protected final int port;
    protected final String[] config;
    private final boolean tls;

    protected TestServer(String... config) {
        this(false, config);
    }

    protected TestServer(boolean tls, String... config) {
        this.port = freePortInRange();
        this.tls = tls;
        this.config = tls ? tlsConfig(port, config) : config;
    }

    /** TLS only on {@code port}: Redis's directives, then {@code extra} (later ones win). */
    private static String[] tlsConfig(int port, String... extra) {
        List<String> c = new ArrayList<>(List.of("--port", "0"));
        c.addAll(TestCertificates.shared().serverArgs(port));
        c.addAll(List.of(extra));
        return c.toArray(String[]::new);
    }

    public static TestServer spinel(String... config) {
        return spinel(false, config);
    }

    /** An embedded Spinel with TLS only, on {@link #port()}; {@code extra} directives override the defaults. */
    public static TestServer spinelTls(String... extra) {
        return spinel(true, extra);
    }

    private static TestServer spinel(boolean tls, String... config) {
        return new TestServer(tls, config) {
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
        return redis(false, config);
    }

    /** A redis-server with TLS only, on {@link #port()}; {@code extra} directives override the defaults. */
    public static TestServer redisTls(String... extra) {
        return redis(true, extra);
    }

    private static TestServer redis(boolean tls, String... config) {
        return new TestServer(tls, config) {
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

    /** {@code redis://127.0.0.1:port}, or {@code rediss://localhost:port} for a TLS server. */
    public String uri() {
        return tls ? "rediss://localhost:" + port : "redis://127.0.0.1:" + port;
    }

    /** TLS options that trust the test CA and present the test client certificate. */
    public static TlsOptions tlsOptions() {
        TestCertificates certs = TestCertificates.shared();
        return TlsOptions.defaults().withTrustedCertificates(certs.caCert).withClientCertificate(certs.clientCert, certs.clientKey);
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
