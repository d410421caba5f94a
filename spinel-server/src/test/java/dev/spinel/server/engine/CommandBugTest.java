package dev.spinel.server.engine;

import dev.spinel.protocol.Args;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.engine.ports.InternalConnection;
import dev.spinel.store.Keyspace;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A command that fails with an exception of its own (a bug, not a RedisError) answers an error in place of the part
 * of its reply it wrote, and the client goes on: it was answered nothing and its connection closed by Netty, which
 * is how a CLUSTER INFO of a node being brought into another group (its own line not applied yet) showed.
 */
class CommandBugTest {
    @Test
    void aBugAnswersAnErrorInPlaceOfThePartialReplyAndTheClientGoesOn() {
        CommandTable table = new CommandTable();
        table.register("ping", (s, a) -> {
            s.out().array(2);
            throw new IllegalStateException("a bug");
        });
        table.register("echo", (s, a) -> s.out().bulk(a.copy(1)));
        Engine engine = new Engine(ServerConfig.defaults(), new Keyspace(16), table);
        Session session = engine.open(new InternalConnection("bug:0"));
        engine.execute(session, Args.of("PING"));
        assertEquals("-ERR internal error in 'ping' (see the server log)\r\n", reply(session));
        session.out().clear();
        engine.execute(session, Args.of("ECHO", "still here"));
        assertEquals("$10\r\nstill here\r\n", reply(session));
    }

    private static String reply(Session session) {
        return new String(session.out().array(), 0, session.out().size(), StandardCharsets.US_ASCII);
    }
}
