package dev.spinel.server.commands;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** AUTH, HELLO and RESET against a server with {@code requirepass}; texts are Redis 7.0.15's. */
class AuthAndHelloTest {
    private static final String NOAUTH = "-NOAUTH Authentication required.\r\n";
    private static final String WRONGPASS = "-WRONGPASS invalid username-password pair or user is disabled.\r\n";
    private static final String HELLO_NOAUTH = "-NOAUTH HELLO must be called with the client already authenticated, "
            + "otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select "
            + "the RESP protocol version at the same time\r\n";
    private static SpinelServer server;

    @BeforeAll
    static void start() {
        server = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("requirepass", "pw"));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void commandsNeedAuthUntilTheRightPassword() throws Exception {
        try (RawClient c = new RawClient(server.port())) {
            assertEquals(NOAUTH, c.callString("GET", "k"));
            assertEquals(NOAUTH, c.callString("CLIENT", "ID"));
            assertEquals(NOAUTH, c.callString("PING"));
            assertEquals(WRONGPASS, c.callString("AUTH", "wrong"));
            assertEquals(WRONGPASS, c.callString("AUTH", "other", "pw"));
            assertEquals("-ERR syntax error\r\n", c.callString("AUTH", "a", "b", "c"));
            assertEquals(NOAUTH, c.callString("GET", "k"));
            assertEquals("+OK\r\n", c.callString("AUTH", "pw"));
            assertEquals("$-1\r\n", c.callString("GET", "k"));
            // A failed AUTH does not undo an earlier success (Redis 7.0).
            assertEquals(WRONGPASS, c.callString("AUTH", "default", "nope"));
            assertEquals("+PONG\r\n", c.callString("PING"));
            assertEquals("+OK\r\n", c.callString("AUTH", "default", "pw"));
        }
    }

    @Test
    void helloRequiresAuthButAppliesSetnameFirst() throws Exception {
        try (RawClient c = new RawClient(server.port())) {
            assertEquals(HELLO_NOAUTH, c.callString("HELLO"));
            assertEquals(HELLO_NOAUTH, c.callString("HELLO", "3", "SETNAME", "early"));
            assertEquals(WRONGPASS, c.callString("HELLO", "3", "AUTH", "default", "bad"));
            assertEquals("-NOPROTO unsupported protocol version\r\n", c.callString("HELLO", "4", "AUTH", "default", "pw"));
            assertEquals(NOAUTH, c.callString("GET", "k"));
            String hello = c.callString("HELLO", "3", "AUTH", "default", "pw");
            assertTrue(hello.startsWith("%7\r\n$6\r\nserver\r\n$5\r\nredis\r\n$7\r\nversion\r\n$6\r\n7.0.15\r\n"
                    + "$5\r\nproto\r\n:3\r\n$2\r\nid\r\n:"), hello);
            assertTrue(hello.endsWith("$4\r\nmode\r\n$10\r\nstandalone\r\n$4\r\nrole\r\n$6\r\nmaster\r\n"
                    + "$7\r\nmodules\r\n*0\r\n"), hello);
            // The name given before authentication was kept; RESP3 is on: null is "_".
            assertEquals("$5\r\nearly\r\n", c.callString("CLIENT", "GETNAME"));
            assertEquals("_\r\n", c.callString("GET", "missing"));
            assertEquals("%3\r\n$5\r\nflags\r\n~1\r\n$3\r\noff\r\n$8\r\nredirect\r\n:-1\r\n$8\r\nprefixes\r\n*0\r\n",
                    c.callString("CLIENT", "TRACKINGINFO"));
        }
    }

    @Test
    void resetDropsAuthenticationNameDbAndResp3() throws Exception {
        try (RawClient c = new RawClient(server.port())) {
            assertEquals("+OK\r\n", c.callString("AUTH", "pw"));
            assertEquals("+OK\r\n", c.callString("SELECT", "2"));
            assertTrue(c.callString("HELLO", "3", "SETNAME", "n1").startsWith("%7\r\n"));
            assertEquals("+OK\r\n", c.callString("SET", "indb2", "v"));
            assertEquals("+RESET\r\n", c.callString("RESET"));
            assertEquals(NOAUTH, c.callString("GET", "indb2"));
            assertEquals("+OK\r\n", c.callString("AUTH", "pw"));
            assertEquals("$-1\r\n", c.callString("GET", "indb2")); // db 0 again, RESP2 null
            assertEquals("$-1\r\n", c.callString("CLIENT", "GETNAME"));
            assertTrue(c.callString("HELLO").startsWith("*14\r\n"));
            assertEquals("+OK\r\n", c.callString("SELECT", "2"));
            assertEquals("$1\r\nv\r\n", c.callString("GET", "indb2"));
        }
    }
}
