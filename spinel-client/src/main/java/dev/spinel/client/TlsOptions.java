package dev.spinel.client;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.nio.file.Path;

/**
 * How a {@code rediss://} client sets up TLS (a {@code redis://} client ignores these). Immutable; derive
 * variants with the {@code with...} methods, then {@link ClientOptions#withTls}.
 * <pre>{@code
 * TlsOptions tls = TlsOptions.defaults()
 *         .withTrustedCertificates(Path.of("ca.crt"))                             // the server's CA (PEM)
 *         .withClientCertificate(Path.of("client.crt"), Path.of("client.key"));   // for tls-auth-clients yes
 * SpinelClient.create("rediss://localhost:6380", ClientOptions.defaults().withTls(tls));
 * }</pre>
 * Trust is the JDK's default trust store unless set here. Key files are PEM: a certificate (chain) and
 * a PKCS#8 key ({@code BEGIN PRIVATE KEY}, or {@code BEGIN ENCRYPTED PRIVATE KEY} with its password).
 *
 * @param trustedCertificates a PEM file of the CA certificates to trust, or null
 * @param trustManagerFactory the trust to use instead, or null
 * @param clientCertificate   PEM certificate (chain) presented to a server that asks for one, or null
 * @param clientKey           its PKCS#8 PEM private key
 * @param clientKeyPassword   the key's password when it is encrypted, else null
 * @param keyManagerFactory   the client keys to use instead of the files, or null
 * @param sslContext          a JDK context that decides trust and keys on its own (the four above are then
 *                            ignored); {@link #verifyPeer} still controls the hostname check
 * @param verifyPeer          what is checked of the server's certificate: {@link VerifyPeer#FULL} by default
 */
public record TlsOptions(Path trustedCertificates, TrustManagerFactory trustManagerFactory, Path clientCertificate,
                         Path clientKey, String clientKeyPassword, KeyManagerFactory keyManagerFactory,
                         SSLContext sslContext, VerifyPeer verifyPeer) {

    /** What the client checks of the server's certificate, as Lettuce's {@code SslVerifyMode}. */
    public enum VerifyPeer {
        /** A trusted CA signed it, and it names the host of the URI (DNS or IP subject alternative name). */
        FULL,
        /** A trusted CA signed it; any host name. */
        CA,
        /** Nothing: any certificate is accepted (tests only; the connection is encrypted but not authenticated). */
        NONE
    }

    /** The JDK's trust store, no client certificate, full verification. */
    public static TlsOptions defaults() {
        return new TlsOptions(null, null, null, null, null, null, null, VerifyPeer.FULL);
    }

    public TlsOptions {
        if (verifyPeer == null) {
            throw new IllegalArgumentException("verifyPeer must not be null");
        }
        if ((clientCertificate == null) != (clientKey == null)) {
            throw new IllegalArgumentException("a client certificate needs its key, and a key its certificate");
        }
    }

    /** Trusts the CA certificates of this PEM file (instead of the JDK's trust store). */
    public TlsOptions withTrustedCertificates(Path caPem) {
        return new TlsOptions(caPem, null, clientCertificate, clientKey, clientKeyPassword, keyManagerFactory, sslContext, verifyPeer);
    }

    public TlsOptions withTrustManagerFactory(TrustManagerFactory trust) {
        return new TlsOptions(null, trust, clientCertificate, clientKey, clientKeyPassword, keyManagerFactory, sslContext, verifyPeer);
    }

    /** Presents this certificate to servers that ask for one (mutual TLS); the key is PKCS#8 PEM, unencrypted. */
    public TlsOptions withClientCertificate(Path certificatePem, Path keyPem) {
        return withClientCertificate(certificatePem, keyPem, null);
    }

    /** As {@link #withClientCertificate(Path, Path)}, the key encrypted with {@code keyPassword}. */
    public TlsOptions withClientCertificate(Path certificatePem, Path keyPem, String keyPassword) {
        return new TlsOptions(trustedCertificates, trustManagerFactory, certificatePem, keyPem, keyPassword, null, sslContext, verifyPeer);
    }

    public TlsOptions withKeyManagerFactory(KeyManagerFactory keys) {
        return new TlsOptions(trustedCertificates, trustManagerFactory, null, null, null, keys, sslContext, verifyPeer);
    }

    /** Takes trust and keys from this JDK context. */
    public TlsOptions withSslContext(SSLContext context) {
        return new TlsOptions(trustedCertificates, trustManagerFactory, clientCertificate, clientKey, clientKeyPassword,
                keyManagerFactory, context, verifyPeer);
    }

    public TlsOptions withVerifyPeer(VerifyPeer mode) {
        return new TlsOptions(trustedCertificates, trustManagerFactory, clientCertificate, clientKey, clientKeyPassword,
                keyManagerFactory, sslContext, mode);
    }

    /** {@code true}: {@link VerifyPeer#FULL}; {@code false}: {@link VerifyPeer#NONE} (as Lettuce's {@code verifyPeer}). */
    public TlsOptions withVerifyPeer(boolean verify) {
        return withVerifyPeer(verify ? VerifyPeer.FULL : VerifyPeer.NONE);
    }

    @Override
    public String toString() { // never print the key's password
        return "TlsOptions[trustedCertificates=" + trustedCertificates + ", trustManagerFactory=" + trustManagerFactory
                + ", clientCertificate=" + clientCertificate + ", clientKey=" + clientKey
                + ", clientKeyPassword=" + (clientKeyPassword == null ? null : "***") + ", keyManagerFactory=" + keyManagerFactory
                + ", sslContext=" + sslContext + ", verifyPeer=" + verifyPeer + "]";
    }
}
