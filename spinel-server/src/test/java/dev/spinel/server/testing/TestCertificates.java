package dev.spinel.server.testing;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509KeyManager;

/**
 * Throw-away certificates for the TLS tests, made with {@code openssl} in a temporary directory: a CA,
 * a server certificate for {@code localhost} and {@code 127.0.0.1} (RSA 2048, PKCS#8 key, as
 * {@code openssl req -newkey rsa:2048 -nodes} writes), a client certificate signed by the same CA, a
 * server certificate of the same CA for another host ({@code wrong-host.invalid}, for hostname
 * verification tests), and an unrelated second CA that signs a second client certificate (for "wrong
 * CA" tests). Generated once per
 * JVM. Without {@code openssl} this fails with a clear message rather than skipping ({@code .ci/run}
 * installs it).
 */
public final class TestCertificates {
    private static TestCertificates shared;

    public final Path dir;
    public final Path caCert;
    public final Path serverCert;
    public final Path serverKey;
    public final Path clientCert;
    public final Path clientKey;
    /** A CA that signed neither the server nor the client certificate. */
    public final Path otherCaCert;
    /** A client certificate signed by {@link #otherCaCert}. */
    public final Path otherClientCert;
    public final Path otherClientKey;
    /** A server certificate of {@link #caCert} that names neither localhost nor 127.0.0.1. */
    public final Path wrongHostCert;
    public final Path wrongHostKey;

    private TestCertificates(Path dir) {
        this.dir = dir;
        caCert = dir.resolve("ca.crt");
        serverCert = dir.resolve("server.crt");
        serverKey = dir.resolve("server.key");
        clientCert = dir.resolve("client.crt");
        clientKey = dir.resolve("client.key");
        otherCaCert = dir.resolve("other-ca.crt");
        otherClientCert = dir.resolve("other-client.crt");
        otherClientKey = dir.resolve("other-client.key");
        wrongHostCert = dir.resolve("wrong-host.crt");
        wrongHostKey = dir.resolve("wrong-host.key");
    }

    /** The certificates of this JVM, made on first use. */
    public static synchronized TestCertificates shared() {
        if (shared == null) {
            try {
                Path dir = Files.createTempDirectory("spinel-tls");
                Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(dir), "spinel-tls-cleanup"));
                TestCertificates c = new TestCertificates(dir);
                c.generate();
                shared = c;
            } catch (IOException e) {
                throw new IllegalStateException("cannot create the test certificates: " + e.getMessage(), e);
            }
        }
        return shared;
    }

    private static void deleteTree(Path dir) {
        try (var files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        } catch (IOException ignored) {
            // a temporary directory: the system cleans it up eventually
        }
    }

    private void generate() throws IOException {
        ca("ca");
        ca("other-ca");
        signed("server", "ca", "localhost",
                "basicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\nsubjectAltName=DNS:localhost,IP:127.0.0.1\n");
        signed("wrong-host", "ca", "wrong-host.invalid",
                "basicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\nsubjectAltName=DNS:wrong-host.invalid\n");
        signed("client", "ca", "spinel-test-client", "basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n");
        signed("other-client", "other-ca", "spinel-other-client", "basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n");
    }

    private void ca(String name) throws IOException {
        openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=Spinel test " + name,
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
                "-keyout", name + ".key", "-out", name + ".crt");
    }

    private void signed(String name, String ca, String commonName, String extensions) throws IOException {
        openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=" + commonName,
                "-keyout", name + ".key", "-out", name + ".csr");
        Files.writeString(dir.resolve(name + ".ext"), extensions);
        openssl("x509", "-req", "-in", name + ".csr", "-CA", ca + ".crt", "-CAkey", ca + ".key",
                "-set_serial", Long.toString(ThreadLocalRandom.current().nextLong(1, Long.MAX_VALUE)),
                "-days", "2", "-extfile", name + ".ext", "-out", name + ".crt");
    }

    /** Writes the server key encrypted (PKCS#8, AES-256) with {@code password}; returns its path. */
    public Path encryptedServerKey(String password) throws IOException {
        Path p = dir.resolve("server-encrypted.key");
        openssl("pkcs8", "-topk8", "-v2", "aes-256-cbc", "-in", "server.key", "-out", p.getFileName().toString(),
                "-passout", "pass:" + password);
        return p;
    }

    /** Writes the server key as PKCS#1 ({@code BEGIN RSA PRIVATE KEY}, OpenSSL 1.x's default); returns its path. */
    public Path pkcs1ServerKey() throws IOException {
        Path p = dir.resolve("server-pkcs1.key");
        openssl("rsa", "-in", "server.key", "-traditional", "-out", p.getFileName().toString());
        return p;
    }

    /** The directives of a TLS server on {@code tlsPort} with these certificates, as {@code --name value} pairs. */
    public List<String> serverArgs(int tlsPort) {
        return List.of("--tls-port", Integer.toString(tlsPort), "--tls-cert-file", serverCert.toString(),
                "--tls-key-file", serverKey.toString(), "--tls-ca-cert-file", caCert.toString());
    }

    /** A JDK context that trusts {@code ca} and, when {@code cert} is not null, presents that client certificate. */
    public SSLContext clientContext(Path ca, Path cert, Path key) {
        try {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            try (InputStream in = Files.newInputStream(ca)) {
                trust.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(in));
            }
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            KeyManagerFactory kmf = null;
            if (cert != null) {
                Path p12 = dir.resolve(cert.getFileName() + ".p12");
                if (!Files.exists(p12)) {
                    openssl("pkcs12", "-export", "-in", cert.toString(), "-inkey", key.toString(),
                            "-out", p12.toString(), "-passout", "pass:test");
                }
                KeyStore keys = KeyStore.getInstance("PKCS12");
                try (InputStream in = Files.newInputStream(p12)) {
                    keys.load(in, "test".toCharArray());
                }
                kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                kmf.init(keys, "test".toCharArray());
            }
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(kmf == null ? null : new KeyManager[]{new AlwaysPresent((X509KeyManager) kmf.getKeyManagers()[0])},
                    tmf.getTrustManagers(), null);
            return ctx;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException("cannot build a client TLS context: " + e.getMessage(), e);
        }
    }

    /** A client context trusting the test CA and presenting the test client certificate. */
    public SSLContext clientContext() {
        return clientContext(caCert, clientCert, clientKey);
    }

    /** A TLS socket to 127.0.0.1:{@code port}, handshake done (TLS 1.3: the server may still reject it on first read). */
    public static SSLSocket connect(SSLContext ctx, int port) throws IOException {
        SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket("127.0.0.1", port);
        s.setSoTimeout(10_000);
        s.startHandshake();
        return s;
    }

    /**
     * Presents its certificate whatever CAs the server lists (the JDK's own key manager sends none when the
     * issuer is not listed, OpenSSL-based clients send it anyway): so a test can offer a foreign certificate.
     */
    private static final class AlwaysPresent extends X509ExtendedKeyManager {
        private final X509KeyManager keys;

        AlwaysPresent(X509KeyManager keys) {
            this.keys = keys;
        }

        private String only() {
            String[] aliases = keys.getClientAliases("RSA", null);
            return aliases == null ? null : aliases[0];
        }

        @Override
        public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
            return only();
        }

        @Override
        public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
            return only();
        }

        @Override
        public String[] getClientAliases(String keyType, Principal[] issuers) {
            return keys.getClientAliases(keyType, null);
        }

        @Override
        public String[] getServerAliases(String keyType, Principal[] issuers) {
            return null;
        }

        @Override
        public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
            return null;
        }

        @Override
        public X509Certificate[] getCertificateChain(String alias) {
            return keys.getCertificateChain(alias);
        }

        @Override
        public PrivateKey getPrivateKey(String alias) {
            return keys.getPrivateKey(alias);
        }
    }

    private void openssl(String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add("openssl");
        cmd.addAll(List.of(args));
        Process p;
        try {
            p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new IllegalStateException("the TLS tests need the openssl command to make their certificates "
                    + "(apt-get install openssl; .ci/run installs it): " + e.getMessage(), e);
        }
        try {
            String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IOException(String.join(" ", cmd) + " failed: " + output);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }
}
