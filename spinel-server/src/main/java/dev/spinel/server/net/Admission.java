package dev.spinel.server.net;

import dev.spinel.server.engine.Engine;

import java.net.InetSocketAddress;
import java.net.SocketAddress;

/** Decides whether a new connection may stay: maxclients and protected mode, with Redis's replies. */
final class Admission {
    private Admission() {
    }

    static final String MAX_CLIENTS = "-ERR max number of clients reached\r\n";
    /** Redis's own text, byte for byte (clients and tools match on it), though the server here is Spinel. */
    static final String DENIED = "-DENIED Redis is running in protected mode because protected mode is enabled and "
            + "no password is set for the default user. In this mode connections are only accepted from the loopback "
            + "interface. If you want to connect from external computers to Redis you may adopt one of the following "
            + "solutions: 1) Just disable protected mode sending the command 'CONFIG SET protected-mode no' from the "
            + "loopback interface by connecting to Redis from the same host the server is running, however MAKE SURE "
            + "Redis is not publicly accessible from internet if you do so. Use CONFIG REWRITE to make this change "
            + "permanent. 2) Alternatively you can just disable the protected mode by editing the Redis configuration "
            + "file, and setting the protected mode option to 'no', and then restarting the server. 3) If you started "
            + "the server manually just for testing, restart it with the '--protected-mode no' option. 4) Set up an "
            + "authentication password for the default user. NOTE: You only need to do one of the above things in "
            + "order for the server to start accepting connections from the outside.\r\n";

    /** The refusal to send before closing, or {@code null} to admit. */
    static String refusal(Engine engine, SocketAddress remote) {
        if (engine.clients().size() >= engine.config().maxclients.value()) {
            return MAX_CLIENTS;
        }
        if (engine.config().protectedMode.value() && !engine.authRequired()
                && remote instanceof InetSocketAddress i && i.getAddress() != null
                && !i.getAddress().isLoopbackAddress()) {
            return DENIED;
        }
        return null;
    }
}
