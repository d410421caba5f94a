package dev.spinel.server.blocking;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A blocked BLMOVE served by another client's push changes its destination: WATCH on it must fail EXEC. */
class ServedWatchTest {

    @Test
    void aServedBlmoveInvalidatesWatchesOnItsDestination() throws Exception {
        try (SpinelServer server = SpinelServer.startEphemeral();
             RawClient watcher = new RawClient(server.port());
             RawClient blocked = new RawClient(server.port());
             RawClient pusher = new RawClient(server.port())) {
            blocked.send(List.of("BLMOVE".getBytes(), "src".getBytes(), "dst".getBytes(), "LEFT".getBytes(),
                    "RIGHT".getBytes(), "0".getBytes()));
            waitBlocked(server);
            assertEquals("+OK\r\n", watcher.callString("WATCH", "dst"));
            assertEquals(":1\r\n", pusher.callString("LPUSH", "src", "x")); // touches src only
            assertEquals("$1\r\nx\r\n", new String(blocked.readReply()));
            watcher.call("MULTI");
            watcher.call("LLEN", "dst");
            assertEquals("*-1\r\n", watcher.callString("EXEC"), "the served move changed dst after WATCH");
        }
    }

    private static void waitBlocked(SpinelServer server) throws InterruptedException {
        for (int i = 0; i < 500 && server.engine().blocking().blockedClients() == 0; i++) {
            Thread.sleep(5);
        }
    }
}
