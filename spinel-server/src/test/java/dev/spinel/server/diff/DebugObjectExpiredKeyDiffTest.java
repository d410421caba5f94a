package dev.spinel.server.diff;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * DEBUG OBJECT describes a key whose time to live has passed but that nothing has deleted yet (active expiry
 * off), as Redis's dict lookup does; the next ordinary lookup then expires it.
 */
class DebugObjectExpiredKeyDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide("enable-debug-command", "yes");

    private static String[] replies(int port) throws Exception {
        try (RawClient c = new RawClient(port)) {
            String[] out = new String[5];
            out[0] = c.callString("DEBUG", "SET-ACTIVE-EXPIRE", "0");
            out[1] = c.callString("SET", "key", "value", "PX", "1");
            Thread.sleep(20);
            // the description's address and idle time differ between servers: its kind is compared
            String object = c.callString("DEBUG", "OBJECT", "key");
            out[2] = object.startsWith("+Value at:") ? "value description" : object;
            out[3] = c.callString("EXISTS", "key");
            out[4] = c.callString("DEBUG", "SET-ACTIVE-EXPIRE", "1");
            return out;
        }
    }

    @Test
    void describesAnExpiredKeyNotYetDeleted() throws Exception {
        String[] redis = replies(SERVERS.redis().port());
        String[] spinel = replies(SERVERS.spinel().port());
        for (int i = 0; i < redis.length; i++) {
            assertEquals(redis[i], spinel[i], "reply " + i);
        }
    }
}
