package dev.spinel.client.internal;

import dev.spinel.client.TlsOptions;
import dev.spinel.client.TlsOptions.VerifyPeer;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.IdentityCipherSuiteFilter;
import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;

/**
 * The TLS context of a {@code rediss://} client, built once from its {@link TlsOptions} on the JDK's
 * provider, and the per-connection {@link SslHandler}: SNI and, in {@link VerifyPeer#FULL} mode, the
 * hostname check use the host the connection was opened to. Immutable, thread-safe.
 */
public final class ClientTls {
    private final SslContext context;
    private final VerifyPeer verify;
    private final long handshakeTimeoutMillis;

    private ClientTls(SslContext context, VerifyPeer verify, long handshakeTimeoutMillis) {
        this.context = context;
        this.verify = verify;
        this.handshakeTimeoutMillis = handshakeTimeoutMillis;
    }

    /**
     * Builds the context; an option that cannot be used (a missing or malformed PEM file) fails here, at
     * client creation, with {@link IllegalArgumentException}.
     */
    public static ClientTls of(TlsOptions o, long handshakeTimeoutMillis) {
        try {
            SslContext context;
            if (o.sslContext() != null) {
                context = new JdkSslContext(o.sslContext(), true, null, IdentityCipherSuiteFilter.INSTANCE, null,
                        ClientAuth.NONE, null, false);
            } else {
                SslContextBuilder b = SslContextBuilder.forClient().sslProvider(SslProvider.JDK)
                        .endpointIdentificationAlgorithm(o.verifyPeer() == VerifyPeer.FULL ? "HTTPS" : null);
                if (o.verifyPeer() == VerifyPeer.NONE) {
                    b.trustManager(InsecureTrustManagerFactory.INSTANCE);
                } else if (o.trustManagerFactory() != null) {
                    b.trustManager(o.trustManagerFactory());
                } else if (o.trustedCertificates() != null) {
                    b.trustManager(o.trustedCertificates().toFile());
                }
                if (o.keyManagerFactory() != null) {
                    b.keyManager(o.keyManagerFactory());
                } else if (o.clientCertificate() != null) {
                    b.keyManager(o.clientCertificate().toFile(), o.clientKey().toFile(), o.clientKeyPassword());
                }
                context = b.build();
            }
            return new ClientTls(context, o.verifyPeer(), handshakeTimeoutMillis);
        } catch (SSLException | RuntimeException e) {
            throw new IllegalArgumentException("cannot set up TLS with " + o + ": " + reasons(e), e);
        }
    }

    /** A handler for one connection to {@code host:port}. */
    SslHandler newHandler(ByteBufAllocator alloc, String host, int port) {
        SSLEngine engine = context.newEngine(alloc, host, port);
        SSLParameters p = engine.getSSLParameters();
        p.setEndpointIdentificationAlgorithm(verify == VerifyPeer.FULL ? "HTTPS" : null);
        engine.setSSLParameters(p);
        SslHandler handler = new SslHandler(engine);
        handler.setHandshakeTimeoutMillis(handshakeTimeoutMillis);
        return handler;
    }

    /** The messages of a cause chain, joined: Netty's "File does not contain valid certificates" says which file, its cause why. */
    static String reasons(Throwable e) {
        StringBuilder sb = new StringBuilder();
        for (Throwable c = e; c != null; c = c.getCause()) {
            String m = c.getMessage() == null ? c.getClass().getSimpleName() : c.getMessage();
            if (sb.indexOf(m) < 0) {
                sb.append(sb.isEmpty() ? "" : ": ").append(m);
            }
        }
        return sb.toString();
    }
}
