package dev.spinel.client.internal;

import dev.spinel.client.ConnectionException;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.AttributeKey;

import javax.net.ssl.SSLException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * Puts TLS under a client channel. The channel's bootstrap ({@link Transport}) carries the client's
 * {@link ClientTls} as the {@link #TLS} attribute; {@link ConnectionHandler} then adds this handler
 * in front of itself. On connect it inserts Netty's {@link SslHandler} for the host being connected to,
 * and reports the connect done only once the TLS handshake is: a certificate the client refuses fails
 * the connect with a {@link ConnectionException} that says why, and everything above it (the RESP
 * handshake, reconnects, the pool, pub/sub) runs unchanged over TLS. Confined to the channel's loop.
 */
final class TlsConnector extends ChannelOutboundHandlerAdapter {
    static final AttributeKey<ClientTls> TLS = AttributeKey.valueOf(TlsConnector.class, "tls");

    private final ClientTls tls;

    private TlsConnector(ClientTls tls) {
        this.tls = tls;
    }

    /** Adds TLS in front of {@code handler} when the channel was bootstrapped for rediss://. */
    static void installBefore(ChannelHandlerContext handler) {
        ClientTls tls = handler.channel().attr(TLS).get();
        if (tls != null) {
            handler.pipeline().addBefore(handler.name(), null, new TlsConnector(tls));
        }
    }

    @Override
    public void connect(ChannelHandlerContext ctx, SocketAddress remote, SocketAddress local, ChannelPromise promise) {
        InetSocketAddress peer = (InetSocketAddress) remote;
        String host = peer.getHostString(); // the name asked for (resolving keeps it), else the IP literal
        SslHandler ssl = tls.newHandler(ctx.alloc(), host, peer.getPort());
        ChannelPipeline pipeline = ctx.pipeline();
        pipeline.addBefore(ctx.name(), null, ssl);
        ChannelPromise tcp = ctx.newPromise();
        tcp.addListener(connected -> {
            if (!connected.isSuccess()) {
                promise.tryFailure(connected.cause());
                return;
            }
            ssl.handshakeFuture().addListener(handshake -> {
                if (handshake.isSuccess()) {
                    promise.trySuccess();
                } else {
                    promise.tryFailure(failure(host + ":" + peer.getPort(), handshake.cause()));
                    ctx.channel().close();
                }
            });
        });
        ctx.connect(remote, local, tcp);
        pipeline.remove(this);
    }

    /** The handshake's failure, with a hint for the two a configuration causes. */
    static ConnectionException failure(String peer, Throwable cause) {
        Throwable c = cause;
        while (c.getCause() != null && !(c instanceof SSLException)) {
            c = c.getCause();
        }
        String reason = ClientTls.reasons(c);
        String hint = "";
        if (reason.contains("PKIX path") || reason.contains("certification path")) {
            hint = " (the server's certificate is not signed by a trusted CA: see TlsOptions.withTrustedCertificates)";
        } else if (reason.contains("No subject alternative") || reason.contains("No name matching")) {
            hint = " (hostname verification: the server's certificate does not name this host; "
                    + "TlsOptions.withVerifyPeer(VerifyPeer.CA) checks the CA only)";
        }
        return new ConnectionException("TLS handshake with " + peer + " failed: " + reason + hint, cause);
    }
}
