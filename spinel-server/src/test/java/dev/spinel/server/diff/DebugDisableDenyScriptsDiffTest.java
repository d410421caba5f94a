package dev.spinel.server.diff;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** DEBUG SET-DISABLE-DENY-SCRIPTS lets scripts call noscript commands (DEBUG PROTOCOL here) and 0 forbids them again. */
class DebugDisableDenyScriptsDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide("enable-debug-command", "yes");

    private static String[] replies(int port) throws Exception {
        String script = "return redis.call('debug', 'protocol', 'bignum')";
        try (RawClient c = new RawClient(port)) {
            return new String[] {
                c.callString("EVAL", script, "0"),
                c.callString("DEBUG", "SET-DISABLE-DENY-SCRIPTS", "1"),
                c.callString("EVAL", script, "0"),
                c.callString("DEBUG", "SET-DISABLE-DENY-SCRIPTS", "0"),
                c.callString("EVAL", script, "0"),
                c.callString("DEBUG", "SET-DISABLE-DENY-SCRIPTS")};
        }
    }

    @Test
    void switchesTheNoscriptRefusal() throws Exception {
        String[] redis = replies(SERVERS.redis().port());
        String[] spinel = replies(SERVERS.spinel().port());
        for (int i = 0; i < redis.length; i++) {
            assertEquals(redis[i], spinel[i], "reply " + i);
        }
    }
}
