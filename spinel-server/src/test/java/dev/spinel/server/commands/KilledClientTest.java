package dev.spinel.server.commands;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A connection cut off by CLIENT KILL (every filter form, and the old {@code ip:port} form) or ACL DELUSER
 * runs nothing after the command that cut it off has answered, as in Redis (which frees it at once): its
 * next PING gets no answer at all, however the two connections' event loops interleave. Each form is tried many
 * times, since the old race lost only one try in ten.
 */
class KilledClientTest {
    private static final int TRIES = 200;
    private static SpinelServer server;

    @BeforeAll
    static void start() {
        server = SpinelServer.startEphemeral();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private interface Killer {
        /** Cuts {@code target} off through {@code killer}; returns the reply. */
        String kill(RawClient killer, RawClient target) throws Exception;
    }

    @Test
    void clientKillById() throws Exception {
        assertNoPong(TRIES, ":1\r\n", (k, t) -> k.callString("CLIENT", "KILL", "ID", String.valueOf(ClientCommandsTest.id(t))));
    }

    @Test
    void clientKillByAddrAndOldForm() throws Exception {
        assertNoPong(TRIES / 2, ":1\r\n", (k, t) -> k.callString("CLIENT", "KILL", "ADDR", addr(t)));
        assertNoPong(TRIES / 2, "+OK\r\n", (k, t) -> k.callString("CLIENT", "KILL", addr(t)));
    }

    @Test
    void clientKillByLaddrAndUserSkippingTheCaller() throws Exception {
        try (RawClient admin = new RawClient(server.port())) {
            admin.call("ACL", "SETUSER", "victim", "on", ">pw", "+@all", "~*");
        }
        assertNoPong(TRIES / 2, ":1\r\n", (k, t) -> {
            t.call("AUTH", "victim", "pw");
            return k.callString("CLIENT", "KILL", "USER", "victim");
        });
        assertNoPong(TRIES / 2, ":1\r\n", (k, t) -> k.callString("CLIENT", "KILL", "LADDR", laddr(k), "SKIPME", "yes"));
    }

    @Test
    void aclDeluserCutsTheUsersConnections() throws Exception {
        assertNoPong(TRIES / 2, ":1\r\n", (k, t) -> {
            k.call("ACL", "SETUSER", "gone", "on", ">pw", "+@all", "~*");
            t.call("AUTH", "gone", "pw");
            return k.callString("ACL", "DELUSER", "gone");
        });
    }

    private static void assertNoPong(int tries, String expectedReply, Killer how) throws Exception {
        int served = 0;
        try (RawClient killer = new RawClient(server.port())) {
            for (int i = 0; i < tries; i++) {
                try (RawClient target = new RawClient(server.port())) {
                    target.call("PING"); // connected and served once
                    assertEquals(expectedReply, how.kill(killer, target));
                    if (answersPing(target)) {
                        served++;
                    }
                }
            }
        }
        assertEquals(0, served, "killed connections whose PING was still answered");
    }

    private static boolean answersPing(RawClient target) {
        try {
            target.send(List.of("PING".getBytes(StandardCharsets.US_ASCII)));
            target.readReply(); // any answer (PONG, or NOAUTH once the user is gone) means the PING was served
            return true;
        } catch (IOException closed) {
            return false;
        }
    }

    private static String addr(RawClient c) throws Exception {
        return field(c, "addr");
    }

    private static String laddr(RawClient c) throws Exception {
        return field(c, "laddr");
    }

    private static String field(RawClient c, String name) throws Exception {
        return ClientCommandsTest.parse(c.callString("CLIENT", "INFO")).getFirst().get(name);
    }
}
