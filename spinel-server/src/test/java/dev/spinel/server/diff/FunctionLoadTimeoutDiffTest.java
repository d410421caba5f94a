package dev.spinel.server.diff;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** FUNCTION LOAD stops a library whose code loops (Redis's 500 ms load timeout) with redis-server 7.0.15's error. */
class FunctionLoadTimeoutDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    private static String[] replies(int port) throws Exception {
        try (RawClient c = new RawClient(port)) {
            return new String[] {
                c.callString("FUNCTION", "FLUSH"),
                c.callString("FUNCTION", "LOAD", "#!lua name=lib\nlocal a = 1\nwhile 1 do a = a + 1 end\n"),
                c.callString("FUNCTION", "LIST"),
                // the server goes on: a library loads after the timeout
                c.callString("FUNCTION", "LOAD", "#!lua name=lib\nredis.register_function('f', function() return 1 end)"),
                c.callString("FCALL", "f", "0")};
        }
    }

    @Test
    @Timeout(30)
    void loopingLibraryTimesOut() throws Exception {
        String[] redis = replies(SERVERS.redis().port());
        String[] spinel = replies(SERVERS.spinel().port());
        for (int i = 0; i < redis.length; i++) {
            assertEquals(redis[i], spinel[i], "reply " + i);
        }
    }
}
