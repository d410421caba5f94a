package dev.spinel.server.shutdown;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Once SHUTDOWN's connection is closed, the server accepts no new connection: redis-server has exited by then, and
 * Redis's own suite ("SHUTDOWN NOSAVE can kill a timedout script anyway", unit/scripting) connects right after the
 * close and expects "connection refused". Before, the listeners closed on the shutdown thread after the crons,
 * replication and extensions had stopped, and such a client was accepted and answered BUSY by the stopping server.
 */
class ShutdownRefusesReconnectTest {

    /** Five servers: the old code accepted the reconnect in about one round of three (a race with the stop). */
    @Test
    @Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void aClientConnectingAfterShutdownNosaveOfABusyScriptIsRefused() throws Exception {
        for (int round = 0; round < 5; round++) {
            shutdownNosaveThenReconnect();
        }
    }

    private static void shutdownNosaveThenReconnect() throws Exception {
        SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0")
                .with("busy-reply-threshold", "10"));
        int port = server.port();
        try (RawClient runner = new RawClient(port); RawClient other = new RawClient(port)) {
            runner.send(java.util.List.of("EVAL".getBytes(), "redis.call('set',KEYS[1],'y') while true do end".getBytes(),
                    "1".getBytes(), "x".getBytes()));
            while (!other.callString("PING").startsWith("-BUSY")) {
                Thread.onSpinWait(); // the script has not started yet
            }
            other.send(java.util.List.of("SHUTDOWN".getBytes(), "NOSAVE".getBytes()));
            assertTrue(other.isClosedByServer(30_000), "SHUTDOWN NOSAVE's connection stays open");
            assertThrows(ConnectException.class, () -> {
                try (Socket s = new Socket()) {
                    s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
                }
            });
            server.awaitClose();
        } finally {
            server.close();
        }
    }
}
