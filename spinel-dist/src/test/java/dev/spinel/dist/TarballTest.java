package dev.spinel.dist;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The distribution as a new user meets it: unpack spinel-VERSION.tar.gz in an empty folder, ask the launcher for its
 * version and help, start it with the sample config, PING it, scrape its metrics, stop it with SIGTERM. No Maven, no
 * checkout: the launcher must take everything from the tarball.
 */
@Timeout(120)
class TarballTest {
    private static final String VERSION = System.getProperty("spinel.version");
    private static final Path TARBALL = Path.of(System.getProperty("spinel.tarball", "target/missing.tar.gz"));

    private static Path unpack(Path dir) throws Exception {
        assertTrue(Files.isRegularFile(TARBALL), "no tarball at " + TARBALL + " (mvn package builds it)");
        Process tar = new ProcessBuilder("tar", "xzf", TARBALL.toString(), "-C", dir.toString()).inheritIO().start();
        assertEquals(0, tar.waitFor());
        Path home = dir.resolve("spinel-" + VERSION);
        for (String f : new String[]{"bin/spinel-server", "bin/find-java", "spinel.conf", "spinel.service",
                "lib/spinel-server-" + VERSION + ".jar", "lib/spinel-grpc-" + VERSION + ".jar"}) {
            assertTrue(Files.exists(home.resolve(f)), f + " missing from the tarball");
        }
        assertTrue(Files.isExecutable(home.resolve("bin/spinel-server")));
        String thirdParty = Files.readString(home.resolve("licences/THIRD-PARTY.txt"));
        try (Stream<Path> jars = Files.list(home.resolve("lib"))) {
            for (Path jar : jars.toList()) {
                String name = jar.getFileName().toString();
                if (!name.startsWith("spinel-")) { // each dependency is listed with its licence
                    String artifact = name.replaceAll("-\\d.*$", "");
                    assertTrue(thirdParty.contains(":" + artifact + ":"), name + " not in THIRD-PARTY.txt");
                }
            }
        }
        try (Stream<Path> licences = Files.walk(home.resolve("licences"))) {
            assertTrue(licences.anyMatch(p -> p.getFileName().toString().startsWith("NOTICE")),
                    "the NOTICE files the dependencies carry are shipped");
        }
        return home;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private static ProcessBuilder launcher(Path home, String... args) {
        String[] cmd = new String[args.length + 1];
        cmd[0] = home.resolve("bin/spinel-server").toString();
        System.arraycopy(args, 0, cmd, 1, args.length);
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(home.toFile());
        // No Maven on the PATH: the distribution must not build anything.
        pb.environment().put("PATH", "/usr/bin:/bin");
        return pb;
    }

    @Test
    void versionAndHelpAsRedisServer(@TempDir Path dir) throws Exception {
        Path home = unpack(dir);
        Process v = launcher(home, "--version").start();
        String out = new String(v.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(v.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, v.exitValue());
        // Version.SPINEL is the release number: the build's version less -SNAPSHOT.
        assertTrue(out.startsWith("Spinel server v=" + VERSION.replace("-SNAPSHOT", "") + " "), out);
        Process h = launcher(home, "--help").start();
        String err = new String(h.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(h.waitFor(60, TimeUnit.SECONDS));
        assertEquals(1, h.exitValue(), "redis-server --help exits with 1");
        assertTrue(err.startsWith("Usage: ./spinel-server [/path/to/spinel.conf] [options] [-]"), err);
    }

    @Test
    void startsPingsServesMetricsAndStops(@TempDir Path dir) throws Exception {
        Path home = unpack(dir);
        int port = freePort();
        int metrics = freePort();
        Process server = launcher(home, "spinel.conf", "--port", Integer.toString(port), "--metrics-port",
                Integer.toString(metrics), "--dir", dir.toString()).redirectErrorStream(true).start();
        StringBuilder log = new StringBuilder();
        Thread reader = Thread.ofVirtual().start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) {
                    synchronized (log) {
                        log.append(line).append('\n');
                    }
                }
            } catch (IOException ignored) {
                // the process ended
            }
        });
        try {
            assertEquals("+PONG", ping(port, server, log));
            String body = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + metrics + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
            assertTrue(body.contains("redis_up 1"), body);
        } finally {
            server.destroy(); // SIGTERM
            assertTrue(server.waitFor(30, TimeUnit.SECONDS), "stops on SIGTERM");
            reader.join(5000);
        }
        synchronized (log) {
            assertFalse(log.toString().contains("Building Spinel"), log.toString());
        }
    }

    /** PINGs until the server answers (the JVM takes a moment to start). */
    private static String ping(int port, Process server, StringBuilder log) throws Exception {
        long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try (Socket s = new Socket("127.0.0.1", port)) {
                OutputStream out = s.getOutputStream();
                out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
                out.flush();
                return new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII)).readLine();
            } catch (IOException notYet) {
                if (!server.isAlive() || System.nanoTime() > giveUp) {
                    synchronized (log) {
                        throw new AssertionError("the server did not answer; its output:\n" + log, notYet);
                    }
                }
                Thread.sleep(100);
            }
        }
    }
}
