package dev.spinel.server.diff;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Keys are stamped with the LRU clock the cron keeps (Redis's server.lruclock), not with a clock read per access:
 * while DEBUG PAUSE-CRON stops the cron, a key written and then left alone for two seconds is still idle 0 seconds,
 * and once the cron runs again its idle time shows, in both servers.
 */
class LruClockDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide("enable-debug-command", "yes");

    @Test
    void idleTimeFollowsTheCronsClock() throws Exception {
        try (RawClient redis = new RawClient(SERVERS.redis().port()); RawClient spinel = new RawClient(SERVERS.spinel().port())) {
            for (RawClient c : new RawClient[] {redis, spinel}) {
                c.call("DEBUG", "PAUSE-CRON", "1");
                c.call("SET", "lru:k", "v");
            }
            Thread.sleep(2_100);
            assertEquals(":0\r\n", redis.callString("OBJECT", "IDLETIME", "lru:k"));
            assertEquals(redis.callString("OBJECT", "IDLETIME", "lru:k"), spinel.callString("OBJECT", "IDLETIME", "lru:k"));
            for (RawClient c : new RawClient[] {redis, spinel}) {
                c.call("DEBUG", "PAUSE-CRON", "0");
            }
            Thread.sleep(400); // a few cron turns
            long r = Long.parseLong(redis.callString("OBJECT", "IDLETIME", "lru:k").trim().substring(1));
            long s = Long.parseLong(spinel.callString("OBJECT", "IDLETIME", "lru:k").trim().substring(1));
            assertEquals(true, r >= 2 && s >= 2, "idle after the cron resumed: redis " + r + ", spinel " + s);
        }
    }
}
