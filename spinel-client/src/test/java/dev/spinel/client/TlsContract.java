package dev.spinel.client;

import dev.spinel.client.TlsOptions.VerifyPeer;
import dev.spinel.client.testing.TestServer;
import dev.spinel.server.testing.TestCertificates;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code rediss://}: every kind of connection (shared, pooled for blocking commands and transactions,
 * pub/sub, and their reconnects) over TLS to a server that listens with TLS only ({@code --port 0
 * --tls-port N --tls-cert-file --tls-key-file --tls-ca-cert-file}, client certificates required), and
 * the ways TLS fails: a server certificate from another CA, one for another host, no client certificate.
 */
abstract class TlsContract {
    private static final TestCertificates CERTS = TestCertificates.shared();
    private static final ClientOptions TLS = ClientOptions.defaults().withTls(TestServer.tlsOptions())
            .withReconnectDelay(Duration.ofMillis(10), Duration.ofMillis(200));

    /** A TLS-only server; {@code extra} directives override the defaults. */
    protected abstract TestServer startServer(String... extra);

    private static String tlsUri(TestServer server, String userInfo, String host, String path) {
        return "rediss://" + userInfo + host + ":" + server.port() + path;
    }

    @Test
    void commandsPoolAndPubSubGoOverTls() throws Exception {
        try (TestServer server = startServer("--requirepass", "s3cret");
             SpinelClient<String, String> c = SpinelClient.create(tlsUri(server, ":s3cret@", "localhost", "/2"), TLS)) {
            assertEquals(3, c.protocol());
            assertEquals("OK", c.sync().set("k", "over tls"));
            assertEquals("over tls", c.sync().get("k"));
            String big = "v".repeat(1 << 20); // many TLS records each way
            c.sync().set("big", big);
            assertEquals(big, c.sync().get("big"));

            CompletableFuture<KeyValue<String, String>> popped = c.async().blpop(5, "q"); // a pooled connection
            assertEquals("PONG", c.sync().ping());
            c.sync().rpush("q", "job");
            assertEquals(new KeyValue<>("q", "job"), popped.get(5, TimeUnit.SECONDS));
            assertTrue(c.transaction(tx -> {
                tx.incr("n");
                return tx.incr("n");
            }).get(5, TimeUnit.SECONDS));
            assertEquals("2", c.sync().get("n"));

            BlockingQueue<String> got = new LinkedBlockingQueue<>();
            try (PubSub<String, String> ps = c.pubSub()) {
                ps.addListener(new PubSubListener<>() {
                    @Override
                    public void message(String channel, String message) {
                        got.add(channel + ":" + message);
                    }
                });
                ps.subscribe("news").get(5, TimeUnit.SECONDS);
                assertEquals(1L, c.sync().publish("news", "hi"));
                assertEquals("news:hi", got.poll(5, TimeUnit.SECONDS));
            }
            try (SpinelClient<String, String> resp2 = SpinelClient.create(tlsUri(server, ":s3cret@", "localhost", ""), TLS.withResp3(false))) {
                assertEquals(2, resp2.protocol());
                assertEquals("PONG", resp2.sync().ping());
            }
        }
    }

    @Test
    void reconnectsOverTlsAfterARestart() throws Exception {
        try (TestServer server = startServer();
             SpinelClient<String, String> c = SpinelClient.create(server.uri(), TLS)) {
            BlockingQueue<String> got = new LinkedBlockingQueue<>();
            try (PubSub<String, String> ps = c.pubSub()) {
                ps.addListener(new PubSubListener<>() {
                    @Override
                    public void message(String channel, String message) {
                        got.add(message);
                    }
                });
                ps.subscribe("ch").get(5, TimeUnit.SECONDS);
                c.sync().set("before", "1");
                server.restart();
                assertEquals("PONG", awaitPong(c));
                assertEquals("OK", c.sync().set("after", "2"));
                assertEquals("2", c.sync().get("after"));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (c.sync().publish("ch", "back") == 0 && System.nanoTime() < deadline) {
                    Thread.sleep(20); // the subscriber reconnects (and resubscribes) on its own schedule
                }
                assertEquals("back", got.poll(5, TimeUnit.SECONDS));
                CompletableFuture<KeyValue<String, String>> popped = c.async().blpop(5, "q2");
                c.sync().rpush("q2", "x");
                assertEquals(new KeyValue<>("q2", "x"), popped.get(5, TimeUnit.SECONDS));
            }
        }
    }

    @Test
    void aServerCertificateOfAnotherCaFailsWithTheReason() throws Exception {
        try (TestServer server = startServer()) {
            TlsOptions otherCa = TestServer.tlsOptions().withTrustedCertificates(CERTS.otherCaCert);
            ConnectionException e = assertThrows(ConnectionException.class,
                    () -> SpinelClient.create(server.uri(), TLS.withTls(otherCa)).close());
            assertTrue(e.getMessage().startsWith("TLS handshake with localhost:" + server.port() + " failed: "), e.getMessage());
            assertTrue(e.getMessage().contains("the server's certificate is not signed by a trusted CA"), e.getMessage());
            // the JDK's own trust store does not know the test CA either
            TlsOptions jdkTrust = TlsOptions.defaults().withClientCertificate(CERTS.clientCert, CERTS.clientKey);
            e = assertThrows(ConnectionException.class, () -> SpinelClient.create(server.uri(), TLS.withTls(jdkTrust)).close());
            assertTrue(e.getMessage().contains("not signed by a trusted CA"), e.getMessage());
            // verifyPeer false: nothing is checked
            try (SpinelClient<String, String> c = SpinelClient.create(server.uri(), TLS.withTls(jdkTrust.withVerifyPeer(false)))) {
                assertEquals("PONG", c.sync().ping());
            }
        }
    }

    @Test
    void hostnameVerificationIsOnByDefault() throws Exception {
        try (TestServer server = startServer("--tls-cert-file", CERTS.wrongHostCert.toString(),
                "--tls-key-file", CERTS.wrongHostKey.toString())) {
            ConnectionException e = assertThrows(ConnectionException.class, () -> SpinelClient.create(server.uri(), TLS).close());
            assertTrue(e.getMessage().contains("hostname verification"), e.getMessage());
            try (SpinelClient<String, String> c = SpinelClient.create(server.uri(),
                    TLS.withTls(TestServer.tlsOptions().withVerifyPeer(VerifyPeer.CA)))) {
                assertEquals("PONG", c.sync().ping());
            }
            // a JDK SSLContext of the application's own: trust and keys from it, the host still checked
            TlsOptions own = TlsOptions.defaults().withSslContext(CERTS.clientContext());
            e = assertThrows(ConnectionException.class, () -> SpinelClient.create(server.uri(), TLS.withTls(own)).close());
            assertTrue(e.getMessage().contains("hostname verification"), e.getMessage());
            try (SpinelClient<String, String> c = SpinelClient.create(server.uri(), TLS.withTls(own.withVerifyPeer(VerifyPeer.CA)))) {
                assertEquals("PONG", c.sync().ping());
            }
        }
        try (TestServer server = startServer(); // the test certificate also names 127.0.0.1 (an IP SAN)
             SpinelClient<String, String> c = SpinelClient.create(tlsUri(server, "", "127.0.0.1", ""), TLS);
             SpinelClient<String, String> own = SpinelClient.create(server.uri(),
                     TLS.withTls(TlsOptions.defaults().withSslContext(CERTS.clientContext())))) {
            assertEquals("PONG", c.sync().ping());
            assertEquals("PONG", own.sync().ping());
        }
    }

    @Test
    void theServerDecidesAboutClientCertificates() throws Exception {
        TlsOptions noCertificate = TlsOptions.defaults().withTrustedCertificates(CERTS.caCert);
        try (TestServer server = startServer()) { // tls-auth-clients yes (the default)
            // With TLS 1.3 the server's refusal comes after the client's handshake, as an alert while the
            // connection's first command waits: the failure names it.
            ConnectionException refused = assertThrows(ConnectionException.class,
                    () -> SpinelClient.create(server.uri(), TLS.withTls(noCertificate)).close());
            assertTrue(refused.getMessage().contains("certificate"), refused.getMessage());
            // a plain-text client on the TLS port
            assertThrows(ConnectionException.class, () -> SpinelClient.create("redis://localhost:" + server.port(), TLS).close());
        }
        try (TestServer server = startServer("--tls-auth-clients", "no");
             SpinelClient<String, String> c = SpinelClient.create(server.uri(), TLS.withTls(noCertificate))) {
            assertEquals("PONG", c.sync().ping());
        }
    }

    @Test
    void unusableTlsOptionsFailAtCreation() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> SpinelClient.create("rediss://localhost:1",
                ClientOptions.defaults().withTls(TlsOptions.defaults().withTrustedCertificates(Path.of("/nonexistent/ca.crt")))));
        assertTrue(e.getMessage().contains("/nonexistent/ca.crt"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> SpinelClient.create("rediss://localhost:1", ClientOptions.defaults()
                .withTls(TlsOptions.defaults().withClientCertificate(CERTS.clientCert, CERTS.caCert))));
        assertTrue(e.getMessage().contains("private key"), e.getMessage());
    }

    private static String awaitPong(SpinelClient<String, String> c) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            try {
                return c.sync().ping();
            } catch (ConnectionException e) {
                if (System.nanoTime() > deadline) {
                    throw e;
                }
                Thread.sleep(20);
            }
        }
    }
}
