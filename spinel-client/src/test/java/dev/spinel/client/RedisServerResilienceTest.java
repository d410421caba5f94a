package dev.spinel.client;

import dev.spinel.client.testing.TestServer;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Authentication, restarts and resubscription against a real redis-server, plus timeouts (DEBUG SLEEP). */
class RedisServerResilienceTest extends ResilienceContract {
    @Override
    protected TestServer startServer(String... config) {
        return TestServer.redis(config);
    }

    @Test
    void timedOutCommandsLeaveLaterRepliesMatched() throws Exception {
        try (TestServer server = TestServer.redis("--enable-debug-command", "yes");
             SpinelClient<String, String> c = SpinelClient.create(server.uri(), ClientOptions.defaults().withCommandTimeout(Duration.ofMillis(100)))) {
            CompletableFuture<?> sleep = c.async().execute("DEBUG", "SLEEP", "0.4");
            CompletableFuture<String> echo = c.async().echo("behind the sleep");
            CompletionException e = assertThrows(CompletionException.class, sleep::join);
            assertInstanceOf(CommandTimeoutException.class, e.getCause());
            e = assertThrows(CompletionException.class, echo::join);
            assertInstanceOf(CommandTimeoutException.class, e.getCause());
            Thread.sleep(500); // the late replies arrive and are discarded in order
            assertEquals("after", c.sync().echo("after"));
            assertEquals("PONG", c.sync().ping());
        }
    }
}
