package dev.spinel.server.engine.clients;

import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.engine.ports.ClientConnection;

/**
 * What the client bookkeeping (the registry, CLIENT PAUSE, memory accounting, the slow log, MONITOR) needs of
 * a connected client: the engine's session implements it, and these classes need nothing else of it, so they
 * sit apart from the engine without a package cycle.
 *
 * <p>Thread-safety: as the implementing session's; {@link #id} and {@link #connection} are fixed at creation
 * and readable from any thread, {@link #out} belongs to the client's event loop (write to it through
 * {@link #deliver} from elsewhere).
 */
public interface Client {
    /** The CLIENT ID, unique for the server's lifetime. */
    long id();

    /** The transport the client is connected through. */
    ClientConnection connection();

    /** The buffer its replies are built in. */
    ReplyBuffer out();

    /** CLIENT SETNAME's name, or null. */
    String name();

    /** The selected database. */
    int dbIndex();

    /** Runs {@code write} (which writes into {@link #out}) on the client's own event loop, then sends it. */
    void deliver(Runnable write);

    /**
     * Whether what the server sends it now is dropped (CLIENT REPLY OFF, or SKIP before its next command), as Redis's
     * prepareClientToWrite refuses such a client: MONITOR's lines too. On the client's own event loop.
     */
    default boolean repliesDropped() {
        return false;
    }
}
