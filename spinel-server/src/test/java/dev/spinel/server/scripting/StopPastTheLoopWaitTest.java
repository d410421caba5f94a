package dev.spinel.server.scripting;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A stop that went on without a loop (the loop did not end within the server's bounded wait) aborts the running
 * script at its end; the loop, once free, gets the script's caller back. That caller is disconnected without an
 * answer, as by redis-server, which exits from SHUTDOWN NOSAVE without answering the script's caller
 * (BusyScriptSameLoopTest). Before, the loop sent the aborted script's error and then what the caller had
 * pipelined: BusyScriptSameLoopTest's runner read a reply where it waited for the connection's end (it failed
 * once in CI, on a machine slow enough for the loop to miss the 3 s wait).
 */
class StopPastTheLoopWaitTest {
    private static final String ENDLESS = "local i = 0 while true do i = i + 1 end";

    private static List<byte[]> cmd(String... args) {
        List<byte[]> out = new ArrayList<>();
        for (String a : args) {
            out.add(a.getBytes(StandardCharsets.UTF_8));
        }
        return out;
    }

    @Test
    @Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
    void theScriptsCallerIsDisconnectedWithoutAnAnswer() throws Exception {
        SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0")
                .with("event-loop-threads", "1").with("busy-reply-threshold", "300"));
        try (RawClient runner = new RawClient(server.port()); RawClient other = new RawClient(server.port())) {
            long otherId = Long.parseLong(other.callString("CLIENT", "ID").trim().substring(1));
            Executor loop = (Executor) server.engine().clients().get(otherId).connection().loop(); // the one loop
            runner.send(cmd("EVAL", ENDLESS, "0"));
            while (!other.callString("PING").startsWith("-BUSY")) {
                Thread.onSpinWait(); // the script has not started yet
            }
            CountDownLatch held = new CountDownLatch(1);
            loop.execute(() -> { // holds the loop past the stop's wait for it, until the stop has aborted the script
                held.countDown();
                try {
                    server.awaitClose();
                    while (server.scripting().running()) {
                        Thread.sleep(10);
                    }
                    Thread.sleep(200); // the script thread gives the caller back to this loop just after
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            held.await();
            server.shutdownAsync(); // what an accepted SHUTDOWN NOSAVE does (ShutdownFlow)
            assertTrue(runner.isClosedByServer(30_000), "the script's caller got an answer from the stopping server");
        } finally {
            server.close();
        }
    }
}
