package dev.spinel.server.net;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import dev.spinel.server.testing.TestCertificates;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLSocket;
import java.io.IOException;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The TLS listener (tls-port and the other tls-* directives): RESP over TLS beside plain RESP, client certificates, CONFIG SET. */
class TlsTest {
    private static final TestCertificates CERTS = TestCertificates.shared();

    private static ServerConfig tlsConfig(int port, int tlsPort) {
        ServerConfig c = ServerConfig.defaults().with("port", Integer.toString(port));
        List<String> args = CERTS.serverArgs(tlsPort);
        for (int i = 0; i < args.size(); i += 2) {
            c.with(args.get(i).substring(2), args.get(i + 1));
        }
        return c;
    }

    private static int freePort() throws IOException {
        return RedisServerProcess.freePort();
    }

    private static RawClient tlsClient(SSLContext ctx, int port) throws IOException {
        return new RawClient(TestCertificates.connect(ctx, port));
    }

    private static RawClient tlsClient(int port) throws IOException {
        return tlsClient(CERTS.clientContext(), port);
    }

    /** The server turned the client away: in the handshake, or (TLS 1.3) on the first read after it. */
    private static void assertRejected(SSLContext ctx, int port) {
        assertThrows(IOException.class, () -> {
            try (RawClient c = tlsClient(ctx, port)) {
                c.callString("PING");
            }
        });
    }

    private static String bulk(String s) {
        return "$" + s.length() + "\r\n" + s + "\r\n";
    }

    @Test
    void tlsAndPlainListenersServeTheSameKeyspace() throws Exception {
        int plain = freePort();
        int tls = freePort();
        try (SpinelServer server = SpinelServer.start(tlsConfig(plain, tls));
             RawClient secure = tlsClient(tls);
             RawClient clear = new RawClient(plain)) {
            assertEquals(plain, server.port());
            assertEquals(tls, server.tlsPort());
            assertEquals("+PONG\r\n", secure.callString("PING"));
            assertEquals("+OK\r\n", secure.callString("SET", "k", "over tls"));
            assertEquals(bulk("over tls"), clear.callString("GET", "k"));
            assertEquals("*2\r\n" + bulk("tls-port") + bulk(Integer.toString(tls)), secure.callString("CONFIG", "GET", "tls-port"));
            String big = "x".repeat(1 << 20); // many TLS records each way
            assertEquals("+OK\r\n", secure.callString("SET", "big", big));
            assertEquals(bulk(big), secure.callString("GET", "big"));
            // pipelined requests in one TLS write are answered in order
            secure.sendRaw("*1\r\n$4\r\nPING\r\n*2\r\n$4\r\nECHO\r\n$2\r\nhi\r\n".getBytes());
            assertEquals("+PONG\r\n", new String(secure.readReply()));
            assertEquals(bulk("hi"), new String(secure.readReply()));
        }
    }

    @Test
    void portZeroMeansNoPlainListenerWhenTlsPortIsSet() throws Exception {
        int tls = freePort();
        try (SpinelServer server = SpinelServer.start(tlsConfig(0, tls)); RawClient c = tlsClient(tls)) {
            assertEquals(0, server.port());
            assertEquals("*2\r\n" + bulk("port") + bulk("0"), c.callString("CONFIG", "GET", "port"));
            assertTrue(c.callString("INFO", "server").contains("\r\ntcp_port:0\r\n"));
        }
    }

    @Test
    void clientCertificatesAsTlsAuthClientsSays() throws Exception {
        SSLContext noCertificate = CERTS.clientContext(CERTS.caCert, null, null);
        SSLContext foreignCertificate = CERTS.clientContext(CERTS.caCert, CERTS.otherClientCert, CERTS.otherClientKey);
        int plain = freePort();
        try (SpinelServer server = SpinelServer.start(tlsConfig(plain, freePort()));
             RawClient admin = new RawClient(plain)) {
            int tls = server.tlsPort();
            // yes, the default: a certificate the CA signed is required
            assertRejected(noCertificate, tls);
            assertRejected(foreignCertificate, tls);
            try (RawClient c = tlsClient(tls)) {
                assertEquals("+PONG\r\n", c.callString("PING"));
            }
            // optional: none is fine, but one given must be valid
            assertEquals("+OK\r\n", admin.callString("CONFIG", "SET", "tls-auth-clients", "optional"));
            try (RawClient c = tlsClient(noCertificate, tls)) {
                assertEquals("+PONG\r\n", c.callString("PING"));
            }
            assertRejected(foreignCertificate, tls);
            // no: none is asked for
            assertEquals("+OK\r\n", admin.callString("CONFIG", "SET", "tls-auth-clients", "no"));
            try (RawClient c = tlsClient(noCertificate, tls)) {
                assertEquals("+PONG\r\n", c.callString("PING"));
            }
            assertEquals("-ERR CONFIG SET failed (possibly related to argument 'tls-auth-clients') - argument(s) must be one of "
                    + "the following: no, yes, optional\r\n", admin.callString("CONFIG", "SET", "tls-auth-clients", "maybe"));
        }
    }

    @Test
    void garbageAndFailedHandshakesCostOtherClientsNothing() throws Exception {
        try (SpinelServer server = SpinelServer.start(tlsConfig(0, freePort())); RawClient good = tlsClient(server.tlsPort())) {
            int tls = server.tlsPort();
            assertEquals("+PONG\r\n", good.callString("PING"));
            try (RawClient plainOnTls = new RawClient(tls)) { // RESP in clear on the TLS port
                plainOnTls.sendRaw("*1\r\n$4\r\nPING\r\n".getBytes());
                assertTrue(plainOnTls.isClosedByServer());
            }
            SSLContext otherTrust = CERTS.clientContext(CERTS.otherCaCert, CERTS.clientCert, CERTS.clientKey);
            assertThrows(SSLHandshakeException.class, () -> TestCertificates.connect(otherTrust, tls).close());
            try (Socket silent = new Socket("127.0.0.1", tls)) { // connected, never says hello
                assertEquals("+PONG\r\n", good.callString("PING"));
                assertTrue(good.callString("INFO", "clients").contains("\r\nconnected_clients:1\r\n"));
            }
            assertEquals("+PONG\r\n", good.callString("PING"));
            assertTrue(good.callString("INFO", "clients").contains("\r\nconnected_clients:1\r\n"));
        }
    }

    @Test
    void startFailsWithRedisReasons() throws Exception {
        int tls = freePort();
        assertStartFails("Failed to configure TLS: Failed to load certificate: /nonexistent/server.crt: No such file or directory",
                tlsConfig(0, tls).with("tls-cert-file", "/nonexistent/server.crt"));
        assertStartFails("Failed to configure TLS: No tls-cert-file configured!", tlsConfig(0, tls).with("tls-cert-file", ""));
        assertStartFails("Failed to configure TLS: No tls-key-file configured!", tlsConfig(0, tls).with("tls-key-file", ""));
        assertStartFails("Failed to configure TLS: Either tls-ca-cert-file or tls-ca-cert-dir must be specified when tls-cluster, "
                + "tls-replication or tls-auth-clients are enabled!", tlsConfig(0, tls).with("tls-ca-cert-file", ""));
        assertStartFails("Failed to configure TLS: Failed to load private key: " + CERTS.clientKey + ": key values mismatch",
                tlsConfig(0, tls).with("tls-key-file", CERTS.clientKey.toString()));
        assertStartFails("Failed to configure TLS: Failed to load private key: " + CERTS.caCert + ": no PEM private key found",
                tlsConfig(0, tls).with("tls-key-file", CERTS.caCert.toString()));
        assertStartFails("Failed to configure TLS: Failed to load certificate: " + CERTS.serverKey + ": no PEM certificate found",
                tlsConfig(0, tls).with("tls-cert-file", CERTS.serverKey.toString()));
        assertStartFails("Failed to configure TLS: Invalid tls-protocols specified. Use a combination of 'TLSv1', 'TLSv1.1', "
                + "'TLSv1.2' and 'TLSv1.3'.", tlsConfig(0, tls).with("tls-protocols", "TLSv1.2 SSLv3"));
        assertStartFails("Failed to configure TLS: Failed to configure ciphers: HIGH", tlsConfig(0, tls).with("tls-ciphers", "HIGH"));
        assertStartFails("Failed to configure TLS: Failed to configure CA certificate(s) file/directory: No such file or directory",
                tlsConfig(0, tls).with("tls-ca-cert-file", "/nonexistent/ca.crt"));
        // tls-auth-clients no needs no CA
        try (SpinelServer server = SpinelServer.start(tlsConfig(0, tls).with("tls-ca-cert-file", "").with("tls-auth-clients", "no"));
             RawClient c = tlsClient(CERTS.clientContext(CERTS.caCert, null, null), server.tlsPort())) {
            assertEquals("+PONG\r\n", c.callString("PING"));
        }
    }

    private static void assertStartFails(String message, ServerConfig config) {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> SpinelServer.start(config).close());
        assertEquals(message, e.getMessage());
    }

    @Test
    void encryptedPkcs8AndPkcs1KeysLoad() throws Exception {
        Path encrypted = CERTS.encryptedServerKey("s3cret");
        int tls = freePort();
        try (SpinelServer server = SpinelServer.start(tlsConfig(0, tls).with("tls-key-file", encrypted.toString())
                .with("tls-key-file-pass", "s3cret")); RawClient c = tlsClient(server.tlsPort())) {
            assertEquals("+PONG\r\n", c.callString("PING"));
        }
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> SpinelServer.start(tlsConfig(0, tls)
                .with("tls-key-file", encrypted.toString()).with("tls-key-file-pass", "wrong")).close());
        assertTrue(e.getMessage().startsWith("Failed to configure TLS: Failed to load private key: " + encrypted
                + ": cannot decrypt the key (wrong tls-key-file-pass?)"), e.getMessage());
        try (SpinelServer server = SpinelServer.start(tlsConfig(0, tls).with("tls-key-file", CERTS.pkcs1ServerKey().toString()));
             RawClient c = tlsClient(server.tlsPort())) {
            assertEquals("+PONG\r\n", c.callString("PING"));
        }
    }

    @Test
    void configSetRebuildsTheContextForNewConnections() throws Exception {
        int plain = freePort();
        try (SpinelServer server = SpinelServer.start(tlsConfig(plain, freePort()));
             RawClient admin = new RawClient(plain);
             RawClient before = tlsClient(server.tlsPort())) {
            int tls = server.tlsPort();
            String unable = " - Unable to update TLS configuration. Check server logs.\r\n";
            assertEquals("-ERR CONFIG SET failed (possibly related to argument 'tls-protocols')" + unable,
                    admin.callString("CONFIG", "SET", "tls-protocols", "TLSv1.2 foo"));
            assertEquals("*2\r\n" + bulk("tls-protocols") + "$0\r\n\r\n", admin.callString("CONFIG", "GET", "tls-protocols"));
            assertEquals("-ERR CONFIG SET failed (possibly related to argument 'tls-cert-file')" + unable,
                    admin.callString("CONFIG", "SET", "tls-cert-file", "/nonexistent/server.crt"));
            assertEquals("-ERR CONFIG SET failed (possibly related to argument 'tls-ciphers')" + unable,
                    admin.callString("CONFIG", "SET", "tls-ciphers", "foo"));
            assertEquals("-ERR CONFIG SET failed (possibly related to argument 'tls-ciphersuites')" + unable,
                    admin.callString("CONFIG", "SET", "tls-ciphersuites", "foo"));
            assertEquals("*2\r\n" + bulk("tls-cert-file") + bulk(CERTS.serverCert.toString()),
                    admin.callString("CONFIG", "GET", "tls-cert-file"));

            assertEquals("+OK\r\n", admin.callString("CONFIG", "SET", "tls-protocols", "TLSv1.2",
                    "tls-ciphers", "ECDHE-RSA-AES128-GCM-SHA256:not-a-cipher"));
            try (SSLSocket s = TestCertificates.connect(CERTS.clientContext(), tls); RawClient c = new RawClient(s)) {
                assertEquals("+PONG\r\n", c.callString("PING"));
                assertEquals("TLSv1.2", s.getSession().getProtocol());
                assertEquals("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", s.getSession().getCipherSuite());
            }
            assertEquals("+OK\r\n", admin.callString("CONFIG", "SET", "tls-protocols", "tlsv1.3",
                    "tls-ciphersuites", "TLS_CHACHA20_POLY1305_SHA256"));
            try (SSLSocket s = TestCertificates.connect(CERTS.clientContext(), tls); RawClient c = new RawClient(s)) {
                assertEquals("+PONG\r\n", c.callString("PING"));
                assertEquals("TLSv1.3", s.getSession().getProtocol());
                assertEquals("TLS_CHACHA20_POLY1305_SHA256", s.getSession().getCipherSuite());
            }
            assertEquals("+PONG\r\n", before.callString("PING")); // open connections keep their session

            try (ServerSocket busy = new ServerSocket(0)) {
                assertEquals("-ERR CONFIG SET failed (possibly related to argument 'tls-port') - Unable to listen on this port. "
                        + "Check server logs.\r\n", admin.callString("CONFIG", "SET", "tls-port", Integer.toString(busy.getLocalPort())));
            }
            assertEquals(tls, server.tlsPort());
            int moved = freePort();
            assertEquals("+OK\r\n", admin.callString("CONFIG", "SET", "tls-port", Integer.toString(moved)));
            assertEquals(moved, server.tlsPort());
            try (RawClient c = tlsClient(moved)) {
                assertEquals("+PONG\r\n", c.callString("PING"));
            }
            assertThrows(ConnectException.class, () -> new Socket("127.0.0.1", tls).close());
            assertEquals("+OK\r\n", admin.callString("CONFIG", "SET", "tls-port", "0"));
            assertEquals(0, server.tlsPort());
            assertThrows(ConnectException.class, () -> new Socket("127.0.0.1", moved).close());
            assertEquals("+PONG\r\n", admin.callString("PING"));
        }
    }

    @Test
    void tlsCanBeTurnedOnAtRunTime() throws Exception {
        try (SpinelServer server = SpinelServer.startEphemeral(); RawClient admin = new RawClient(server.port())) {
            int tls = freePort();
            assertEquals("-ERR CONFIG SET failed (possibly related to argument 'tls-port') - Unable to update TLS configuration. "
                    + "Check server logs.\r\n", admin.callString("CONFIG", "SET", "tls-port", Integer.toString(tls)));
            assertEquals(0, server.tlsPort());
            assertEquals("+OK\r\n", admin.callString("CONFIG", "SET", "tls-cert-file", CERTS.serverCert.toString(),
                    "tls-key-file", CERTS.serverKey.toString(), "tls-ca-cert-dir", CERTS.dir.toString()));
            assertEquals("+OK\r\n", admin.callString("CONFIG", "SET", "tls-port", Integer.toString(tls)));
            try (RawClient c = tlsClient(tls)) {
                assertEquals("+PONG\r\n", c.callString("PING"));
            }
            assertEquals("+PONG\r\n", admin.callString("PING"));
        }
    }

    @Test
    void jedisTalksOverTls() throws Exception {
        try (SpinelServer server = SpinelServer.start(tlsConfig(0, freePort()));
             Jedis j = new Jedis(new HostAndPort("localhost", server.tlsPort()), DefaultJedisClientConfig.builder()
                     .ssl(true).sslSocketFactory(CERTS.clientContext().getSocketFactory()).build())) {
            assertEquals("OK", j.set("k", "v"));
            assertEquals("v", j.get("k"));
            assertEquals(1, j.incr("n"));
        }
    }
}
