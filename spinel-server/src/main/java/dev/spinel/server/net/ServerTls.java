package dev.spinel.server.net;

import dev.spinel.server.config.ConfigException;
import dev.spinel.server.config.ServerConfig;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslHandler;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.TrustManagerFactory;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.net.Socket;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The TLS side of the RESP front end, built from the {@code tls-*} directives as Redis's
 * {@code tlsConfigure} builds its SSL_CTX, on the JDK's own provider: the server's certificate chain
 * and key ({@code tls-cert-file}, {@code tls-key-file}, {@code tls-key-file-pass}), the CAs that client
 * certificates are checked against ({@code tls-ca-cert-file}, every PEM certificate in
 * {@code tls-ca-cert-dir}), {@code tls-protocols}, {@code tls-ciphers}, {@code tls-ciphersuites} and
 * {@code tls-prefer-server-ciphers}. A failure's message is Redis's log line for it.
 *
 * <p>Immutable: CONFIG SET builds a new one for new connections; open connections keep the one they
 * were accepted with, as in Redis. {@code tls-auth-clients} is read per connection, as Redis reads it
 * at accept. Thread-safe.
 */
public final class ServerTls {
    private final SSLContext context;
    /** Outgoing connections' context: tls-client-cert-file's certificate when set, else the server's. */
    private final SSLContext clientContext;
    private final String[] protocols;
    private final String[] cipherSuites;
    private final boolean preferServerCiphers;
    private final ServerConfig config;

    private ServerTls(SSLContext context, SSLContext clientContext, String[] protocols, String[] cipherSuites,
                      boolean preferServerCiphers, ServerConfig config) {
        this.context = context;
        this.clientContext = clientContext;
        this.protocols = protocols;
        this.cipherSuites = cipherSuites;
        this.preferServerCiphers = preferServerCiphers;
        this.config = config;
    }

    /** Builds the context from the current {@code tls-*} values; throws with the reason, in Redis's words. */
    public static ServerTls configure(ServerConfig c) throws ConfigException {
        String certFile = c.tlsCertFile.value();
        String keyFile = c.tlsKeyFile.value();
        String caFile = c.tlsCaCertFile.value();
        String caDir = c.tlsCaCertDir.value();
        if (certFile.isEmpty()) {
            throw new ConfigException("No tls-cert-file configured!");
        }
        if (keyFile.isEmpty()) {
            throw new ConfigException("No tls-key-file configured!");
        }
        if (!c.tlsAuthClients.value().equals("no") && caFile.isEmpty() && caDir.isEmpty()) {
            throw new ConfigException("Either tls-ca-cert-file or tls-ca-cert-dir must be specified when tls-cluster, "
                    + "tls-replication or tls-auth-clients are enabled!");
        }
        String[] protocols = TlsSuites.protocols(c.tlsProtocols.value());
        if (protocols == null) {
            throw new ConfigException("Invalid tls-protocols specified. Use a combination of 'TLSv1', 'TLSv1.1', 'TLSv1.2' and 'TLSv1.3'.");
        }
        Identity server = identity(certFile, keyFile, c.tlsKeyFilePass.value());
        List<X509Certificate> authorities = new ArrayList<>();
        try {
            if (!caFile.isEmpty()) {
                authorities.addAll(PemFiles.certificates(Path.of(caFile)));
            }
            if (!caDir.isEmpty()) {
                authorities.addAll(certificatesIn(Path.of(caDir)));
            }
        } catch (IOException e) {
            throw new ConfigException("Failed to configure CA certificate(s) file/directory: " + e.getMessage());
        }
        // as Redis's tlsConfigure: a client context of its own only when both client files are set
        String clientCert = c.tlsClientCertFile.value();
        String clientKey = c.tlsClientKeyFile.value();
        Identity client = clientCert.isEmpty() || clientKey.isEmpty() ? null
                : identity(clientCert, clientKey, c.tlsClientKeyFilePass.value());
        SSLContext context;
        SSLContext clientContext;
        try {
            context = context(server.key, server.chain, authorities);
            clientContext = client == null ? context : context(client.key, client.chain, authorities);
        } catch (GeneralSecurityException | IOException e) {
            throw new ConfigException("Failed to configure TLS: " + e.getMessage());
        }
        List<String> supported = Arrays.asList(context.getSupportedSSLParameters().getCipherSuites());
        List<String> defaults = Arrays.asList(context.getDefaultSSLParameters().getCipherSuites());
        List<String> older = TlsSuites.ciphers(c.tlsCiphers.value(), supported, defaults);
        if (older.isEmpty()) {
            throw new ConfigException("Failed to configure ciphers: " + c.tlsCiphers.value());
        }
        List<String> tls13 = TlsSuites.ciphersuites(c.tlsCiphersuites.value(), supported, defaults);
        if (tls13.isEmpty()) {
            throw new ConfigException("Failed to configure ciphersuites: " + c.tlsCiphersuites.value());
        }
        List<String> suites = new ArrayList<>(tls13);
        suites.addAll(older);
        return new ServerTls(context, clientContext, protocols, suites.toArray(String[]::new), c.tlsPreferServerCiphers.value(), c);
    }

    /** A handler for one accepted connection: a server-mode engine asking for a client certificate per tls-auth-clients. */
    SslHandler newHandler() {
        SSLEngine engine = context.createSSLEngine();
        engine.setUseClientMode(false);
        SSLParameters p = engine.getSSLParameters();
        p.setProtocols(protocols);
        p.setCipherSuites(cipherSuites);
        p.setUseCipherSuitesOrder(preferServerCiphers);
        switch (config.tlsAuthClients.value()) {
            case "no" -> p.setNeedClientAuth(false);
            case "optional" -> p.setWantClientAuth(true);
            default -> p.setNeedClientAuth(true);
        }
        engine.setSSLParameters(p);
        return new SslHandler(engine);
    }

    /**
     * A TLS client connection over {@code plain} (already connected), for a replica's link to its master:
     * {@code tls-client-cert-file}'s certificate as the client's (this server's when unset), the master's certificate checked against {@code tls-ca-cert-*}
     * (no host name check, as Redis's SSL_VERIFY_PEER), the configured protocols and ciphers; handshaken.
     */
    public SSLSocket connect(Socket plain, String host, int port) throws IOException {
        SSLSocket s = (SSLSocket) clientContext.getSocketFactory().createSocket(plain, host, port, true);
        s.setUseClientMode(true);
        SSLParameters p = s.getSSLParameters();
        p.setProtocols(protocols);
        p.setCipherSuites(cipherSuites);
        s.setSSLParameters(p);
        s.startHandshake();
        return s;
    }

    private record Identity(PrivateKey key, List<X509Certificate> chain) {
    }

    /** A certificate chain and its key, from PEM files; Redis's errors. */
    private static Identity identity(String certFile, String keyFile, String keyPass) throws ConfigException {
        List<X509Certificate> chain;
        try {
            chain = PemFiles.certificates(Path.of(certFile));
        } catch (IOException e) {
            throw new ConfigException("Failed to load certificate: " + certFile + ": " + e.getMessage());
        }
        PrivateKey key;
        try {
            key = PemFiles.privateKey(Path.of(keyFile), keyPass);
            PemFiles.checkPair(key, chain.getFirst());
        } catch (IOException e) {
            throw new ConfigException("Failed to load private key: " + keyFile + ": " + e.getMessage());
        }
        return new Identity(key, chain);
    }

    private static SSLContext context(PrivateKey key, List<X509Certificate> chain, List<X509Certificate> authorities)
            throws GeneralSecurityException, IOException {
        char[] password = "spinel".toCharArray(); // protects the in-memory key store only
        KeyStore keys = KeyStore.getInstance("PKCS12");
        keys.load(null, null);
        keys.setKeyEntry("server", key, password, chain.toArray(X509Certificate[]::new));
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(keys, password);
        KeyStore trusted = KeyStore.getInstance("PKCS12");
        trusted.load(null, null);
        for (int i = 0; i < authorities.size(); i++) {
            trusted.setCertificateEntry("ca-" + i, authorities.get(i));
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trusted);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(kmf.getKeyManagers(), tmf.getTrustManagers(), null);
        return context;
    }

    /**
     * The certificates of every PEM file in a CA directory (OpenSSL looks them up by hash name; reading
     * them all trusts the same set). A file that is not a certificate is skipped; a missing directory
     * adds none, as OpenSSL accepts it.
     */
    private static List<X509Certificate> certificatesIn(Path dir) throws IOException {
        List<X509Certificate> out = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return out;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path f : files) {
                if (Files.isRegularFile(f)) {
                    try {
                        out.addAll(PemFiles.certificates(f));
                    } catch (IOException notACertificate) {
                        // keys, CRLs and other files in the same directory
                    }
                }
            }
        }
        return out;
    }

    /** Why a TLS handshake failed, in one short line: the SSL exception's message, not the bytes' hex dump. */
    static String handshakeFailureReason(Throwable cause) {
        Throwable c = cause;
        while (c.getCause() != null && !(c instanceof SSLException)) {
            c = c.getCause();
        }
        String reason = c.getMessage() == null ? c.getClass().getSimpleName() : c.getMessage();
        if (c instanceof NotSslRecordException) {
            return "not an SSL/TLS record (a plain-text client on the TLS port?)";
        }
        return reason.length() > 120 ? reason.substring(0, 120) + "..." : reason;
    }
}
