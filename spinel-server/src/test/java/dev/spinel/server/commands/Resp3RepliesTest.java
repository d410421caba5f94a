package dev.spinel.server.commands;

import dev.spinel.protocol.Args;
import dev.spinel.server.SpinelServer;
import dev.spinel.server.engine.Session;
import dev.spinel.server.engine.ports.InternalConnection;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * RESP3 shapes of the server commands, driven through the engine with a RESP3 session (HELLO belongs
 * to the connection family): INFO is a verbatim string, CONFIG GET a map, COMMAND DOCS a map.
 */
class Resp3RepliesTest {
    private static SpinelServer server;

    @BeforeAll
    static void start() {
        server = SpinelServer.startEphemeral();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static String run(int protocol, String... args) {
        Session s = server.engine().open(new InternalConnection("test:0"));
        try {
            s.protocol(protocol);
            server.engine().execute(s, Args.of(args));
            return new String(s.out().array(), 0, s.out().size(), StandardCharsets.UTF_8);
        } finally {
            server.engine().close(s);
        }
    }

    @Test
    void infoIsVerbatimTextInResp3AndBulkInResp2() {
        String r3 = run(3, "INFO", "cluster");
        assertEquals("=34\r\ntxt:# Cluster\r\ncluster_enabled:0\r\n\r\n", r3);
        assertEquals("$30\r\n# Cluster\r\ncluster_enabled:0\r\n\r\n", run(2, "INFO", "cluster"));
    }

    @Test
    void configGetIsAMapInResp3() {
        assertEquals("%1\r\n$9\r\nmaxmemory\r\n$1\r\n0\r\n", run(3, "CONFIG", "GET", "maxmemory"));
        assertEquals("*2\r\n$9\r\nmaxmemory\r\n$1\r\n0\r\n", run(2, "CONFIG", "GET", "maxmemory"));
        assertEquals("%0\r\n", run(3, "CONFIG", "GET", "nosuch"));
    }

    @Test
    void commandDocsIsAMapAndCommandInfoNullsUnknown() {
        assertTrue(run(3, "COMMAND", "DOCS", "get").startsWith("%1\r\n$3\r\nget\r\n%"));
        assertEquals("*1\r\n_\r\n", run(3, "COMMAND", "INFO", "nosuch"));
        // Redis 7.0.15 gives each key's flags as a set in RESP3 (checked against redis-server).
        assertTrue(run(3, "COMMAND", "GETKEYSANDFLAGS", "get", "k").startsWith("*1\r\n*2\r\n$1\r\nk\r\n~2\r\n+RO\r\n"));
    }

    @Test
    void commandListsEveryRegisteredCommandOnce() {
        String count = run(2, "COMMAND", "COUNT");
        int n = Integer.parseInt(count.substring(1, count.length() - 2));
        assertEquals(server.engine().commands().all().size(), n);
        assertTrue(run(2, "COMMAND").startsWith("*" + n + "\r\n"));
    }
}
