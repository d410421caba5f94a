package dev.spinel.server.config;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.ConnectException;
import java.net.ServerSocket;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** CONFIG SET values the running server must act on: port and bind listen anew, failures change nothing. */
class ConfigApplyTest {
    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    @Test
    void configSetPortListensOnTheNewPort() throws Exception {
        try (SpinelServer server = SpinelServer.startEphemeral()) {
            int oldPort = server.port();
            int newPort = freePort();
            try (RawClient c = new RawClient(oldPort)) {
                assertEquals("+OK\r\n", c.callString("CONFIG", "SET", "port", Integer.toString(newPort)));
                // The existing connection stays; new ones go to the new port only.
                assertEquals("+PONG\r\n", c.callString("PING"));
            }
            assertEquals(newPort, server.port());
            try (RawClient c = new RawClient(newPort)) {
                assertEquals("+PONG\r\n", c.callString("PING"));
                assertEquals("+OK\r\n", c.callString("CONFIG", "SET", "port", Integer.toString(newPort)));
            }
            assertThrows(ConnectException.class, () -> new RawClient(oldPort).close());
        }
    }

    @Test
    void portInUseIsRefusedAndNothingChanges() throws Exception {
        try (SpinelServer server = SpinelServer.startEphemeral(); ServerSocket busy = new ServerSocket(0)) {
            int port = server.port();
            try (RawClient c = new RawClient(port)) {
                assertEquals("-ERR CONFIG SET failed (possibly related to argument 'port') - Unable to listen on this port. Check server logs.\r\n",
                        c.callString("CONFIG", "SET", "maxmemory", "5mb", "port", Integer.toString(busy.getLocalPort())));
                assertEquals("*4\r\n$4\r\nport\r\n$1\r\n0\r\n$9\r\nmaxmemory\r\n$1\r\n0\r\n",
                        c.callString("CONFIG", "GET", "port", "maxmemory"));
            }
            assertEquals(port, server.port());
            try (RawClient c = new RawClient(port)) {
                assertEquals("+PONG\r\n", c.callString("PING"));
            }
        }
    }

    @Test
    void badBindAddressIsRefused() throws Exception {
        try (SpinelServer server = SpinelServer.startEphemeral(); RawClient c = new RawClient(server.port())) {
            assertEquals("-ERR CONFIG SET failed (possibly related to argument 'bind') - Failed to bind to specified addresses.\r\n",
                    c.callString("CONFIG", "SET", "bind", "192.0.2.123"));
            assertEquals("*2\r\n$4\r\nbind\r\n$9\r\n127.0.0.1\r\n", c.callString("CONFIG", "GET", "bind"));
            try (RawClient again = new RawClient(server.port())) {
                assertEquals("+PONG\r\n", again.callString("PING"));
            }
        }
    }

    @Test
    void hzChangeIsAccepted() throws Exception {
        try (SpinelServer server = SpinelServer.startEphemeral(); RawClient c = new RawClient(server.port())) {
            c.call("SET", "k", "v", "PX", "1");
            assertEquals("+OK\r\n", c.callString("CONFIG", "SET", "hz", "100"));
            Thread.sleep(200);
            // The rescheduled cron keeps expiring keys actively: DBSIZE-free check through INFO keyspace.
            String info = c.callString("INFO", "keyspace");
            assertEquals("$12\r\n# Keyspace\r\n\r\n", info);
        }
    }

    @Test
    void spinelOwnStartTimeParametersTakeOnlyTheirCurrentValue() throws Exception {
        try (SpinelServer server = SpinelServer.startEphemeral(); RawClient c = new RawClient(server.port())) {
            String current = c.callString("CONFIG", "GET", "io-transport").split("\r\n")[4];
            assertEquals("+OK\r\n", c.callString("CONFIG", "SET", "io-transport", current, "event-loop-threads",
                    c.callString("CONFIG", "GET", "event-loop-threads").split("\r\n")[4]));
            assertEquals("-ERR CONFIG SET failed (possibly related to argument 'event-loop-threads') - can't set immutable config\r\n",
                    c.callString("CONFIG", "SET", "event-loop-threads", "77"));
            // the io_uring switches too (Redis's "CONFIG sanity" sets back every parameter CONFIG GET * lists)
            assertEquals("+OK\r\n", c.callString("CONFIG", "SET", "io-uring-direct-send", "yes", "io-uring-single-issuer", "yes"));
            assertEquals("-ERR CONFIG SET failed (possibly related to argument 'io-uring-single-issuer') - can't set immutable config\r\n",
                    c.callString("CONFIG", "SET", "io-uring-single-issuer", "no"));
        }
    }
}
