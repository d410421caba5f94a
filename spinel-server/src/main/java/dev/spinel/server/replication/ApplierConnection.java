package dev.spinel.server.replication;

import dev.spinel.protocol.Args;
import dev.spinel.server.engine.ports.InternalConnection;

import java.net.Socket;
import java.util.function.Supplier;

/**
 * The connection of a {@link MasterLink}'s applier (the master's client on a replica): a command postponed by
 * CLIENT PAUSE (the stream is all writes) is kept to run again once the pause ends, as Redis's master client
 * waits, instead of being dropped. Its address is the master's; killing it (CLIENT KILL TYPE master) drops the
 * link, which then reconnects with PSYNC.
 *
 * <p>Thread-safety: the postponed command is set and taken on the link's thread, which applies the stream;
 * the socket is read through the link's volatile field.
 */
final class ApplierConnection extends InternalConnection {
    private final String masterAddress;
    private final Supplier<Socket> socket;
    private Args postponed;

    ApplierConnection(String masterAddress, Supplier<Socket> socket) {
        super("master");
        this.masterAddress = masterAddress;
        this.socket = socket;
    }

    @Override
    public String remoteAddress() {
        return masterAddress;
    }

    @Override
    public String localAddress() {
        Socket s = socket.get();
        return s != null ? s.getLocalAddress().getHostAddress() + ":" + s.getLocalPort() : "";
    }

    @Override
    public void kill() {
        MasterLink.close(socket.get());
    }

    @Override
    public void suspend(Args retry) {
        super.suspend(retry);
        postponed = retry;
    }

    Args takePostponed() {
        Args a = postponed;
        postponed = null;
        return a;
    }
}
