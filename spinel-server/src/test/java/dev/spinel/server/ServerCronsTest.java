package dev.spinel.server;

import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.Await;
import dev.spinel.server.testing.RawClient;
import io.netty.util.concurrent.AbstractScheduledEventExecutor;
import io.netty.util.concurrent.EventExecutor;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The periodic work runs on a timer thread of its own: an event loop with a scheduled task reads the clock on
 * every turn, so an idle server's loops must hold none, while the crons still do their work (here: the
 * idle-client timeout and active expiry; hz changes are in ConfigApplyTest).
 */
class ServerCronsTest {

    @Test
    void eventLoopsHoldNoScheduledTaskWhileTheCronsRun() throws Exception {
        try (SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("timeout", "1"));
             RawClient idle = new RawClient(server.port());
             RawClient c = new RawClient(server.port())) {
            c.call("SET", "gone", "v", "PX", "30");
            assertEquals("+PONG\r\n", idle.callString("PING"));
            Method next = AbstractScheduledEventExecutor.class.getDeclaredMethod("nextScheduledTaskDeadlineNanos");
            next.setAccessible(true);
            for (EventExecutor loop : server.eventLoops()) {
                // read on the loop itself: its scheduled-task queue belongs to it
                long deadline = (long) loop.submit(() -> next.invoke(loop)).get();
                assertEquals(-1L, deadline, "a scheduled task on " + loop);
            }
            // the cron's work goes on: the key expires with nobody reading it, the idle client is closed
            Await.waitFor(() -> server.engine().keyspace().expiredKeys() == 1, "active expiry of the key");
            assertTrue(idle.isClosedByServer(5000), "the idle client closed by the timeout");
        }
    }
}
