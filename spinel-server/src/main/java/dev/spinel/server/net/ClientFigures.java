package dev.spinel.server.net;

import dev.spinel.protocol.QueryBuffer;
import dev.spinel.server.engine.Session;

import java.net.InetSocketAddress;
import java.net.SocketAddress;

/**
 * What CLIENT LIST shows of a RESP connection that the network layer holds: its addresses in Redis's form and
 * its query buffer's free space.
 *
 * <p>Thread-safety: stateless; called from any thread (CLIENT LIST runs on the caller's loop, so the figures
 * are a snapshot that may be a moment old).
 */
final class ClientFigures {
    /** Redis's clientsCronResizeQueryBuffer frees the query buffer of a client idle for more than 2 s. */
    private static final long IDLE_QUERY_BUFFER_MS = 2000;

    private ClientFigures() {
    }

    /** An address as Redis's anetFormatAddr writes it: IPv6 hosts in brackets, so CLIENT KILL ADDR matches its form. */
    static String address(SocketAddress a) {
        if (a instanceof InetSocketAddress i) {
            String host = i.getAddress() != null ? i.getAddress().getHostAddress() : i.getHostString();
            return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + i.getPort();
        }
        return String.valueOf(a);
    }

    /**
     * Free space of a connection's query buffer: its own array ({@code own}) while it holds input (part of a
     * request, requests not run yet), else the receive buffer its last read went into ({@code lastRead} bytes,
     * Netty's adaptive guess for the connection: 16 KiB at first, up to 64 KiB after large reads, halving after
     * small ones; the loop's shared scratch is no one's). Redis keeps an idle client's query buffer until its cron
     * finds the client idle for more than 2 s; Spinel holds none between reads and shows the last read's buffer
     * for that long, then 0, so that CLIENT LIST's sizes follow Redis's (its querybuf unit).
     */
    static long queryBufferFree(QueryBuffer own, long pending, int lastRead, Session s) {
        if (own != null) {
            return own.array().length - own.writePos();
        }
        if (s == null || System.currentTimeMillis() - s.lastInteraction() > IDLE_QUERY_BUFFER_MS) {
            return 0;
        }
        return Math.max(0, lastRead - pending);
    }
}
