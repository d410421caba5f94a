package dev.spinel.server.commands;

import java.util.List;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** CLIENT LIST shows pub/sub, MULTI, tracking and MONITOR state with Redis's fields and flags. */
class ClientListStateTest {

    @Test
    void subscriberAndTransactionStateAppearInClientList() throws Exception {
        try (SpinelServer server = SpinelServer.startEphemeral();
             RawClient sub = new RawClient(server.port());
             RawClient tx = new RawClient(server.port());
             RawClient admin = new RawClient(server.port())) {
            sub.call("SUBSCRIBE", "a");
            sub.send(List.of("PSUBSCRIBE".getBytes(), "p*".getBytes()));
            sub.readReply();
            tx.call("CLIENT", "TRACKING", "ON", "BCAST");
            tx.call("MULTI");
            tx.call("SET", "k", "v");
            String pubsub = admin.callString("CLIENT", "LIST", "TYPE", "pubsub");
            assertTrue(pubsub.contains(" flags=P ") && pubsub.contains(" sub=1 psub=1 ssub=0 multi=-1 "), pubsub);
            String all = admin.callString("CLIENT", "LIST");
            assertTrue(all.contains(" flags=xtB ") && all.contains(" multi=1 "), all);
            // Redis sets the last command when it queues one: the MULTI client's cmd= is the queued SET.
            assertTrue(all.contains(" multi=1 qbuf") && all.matches("(?s).*flags=xtB .* cmd=set .*"), all);
            assertTrue(all.contains(" redir=0 "), all);
            admin.call("MONITOR");
            String replica = new RawClient(server.port()).callString("CLIENT", "LIST", "TYPE", "replica");
            assertTrue(replica.contains(" flags=O "), replica);
        }
    }

    @Test
    void ownQueryBufferHoldsTheRunningCommandAsInRedis() throws Exception {
        try (SpinelServer server = SpinelServer.startEphemeral(); RawClient c = new RawClient(server.port())) {
            // "*2\r\n$6\r\nclient\r\n$4\r\nlist\r\n" is 26 bytes: Redis's introspection test expects qbuf=26.
            assertTrue(c.callString("CLIENT", "LIST").contains(" qbuf=26 "));
            assertTrue(c.callString("CLIENT", "INFO").contains(" qbuf=26 "));
            assertTrue(c.callString("client", "info").contains(" qbuf=26 "));
        }
    }
}
