package dev.spinel.server.diff;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * WATCH of a key that was already logically expired when watched (Redis 7.0's watchedKey.expired): its
 * deletion — lazy, by FLUSHDB, by SWAPDB — is no change and EXEC runs; a write that gives it a live value is
 * a change. Each scenario runs on Spinel and on redis-server (active expiry off on both) and the replies of
 * every step are compared.
 */
class WatchExpiredKeysDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide("enable-debug-command", "yes");

    private static final List<List<String>> SCENARIOS = List.of(
            // watched stale, left alone
            List.of("SELECT 0", "SET x foo PX 1", "SLEEP", "WATCH x", "MULTI", "PING", "EXEC"),
            // watched stale, deleted lazily by a read
            List.of("SELECT 0", "SET x foo PX 1", "SLEEP", "WATCH x", "EXISTS x", "MULTI", "PING", "EXEC"),
            // watched stale, deleted lazily and then written: a change
            List.of("SELECT 0", "SET x foo PX 1", "SLEEP", "WATCH x", "SET x bar", "MULTI", "PING", "EXEC"),
            // watched stale, deleted lazily then re-created by another command
            List.of("SELECT 0", "SET x foo PX 1", "SLEEP", "WATCH x", "EXISTS x", "LPUSH x a", "MULTI", "PING", "EXEC"),
            // watched stale, FLUSHDB
            List.of("SELECT 0", "SET x foo PX 1", "SLEEP", "WATCH x", "FLUSHDB", "MULTI", "PING", "EXEC"),
            // watched stale, FLUSHALL
            List.of("SELECT 0", "SET x foo PX 1", "SLEEP", "WATCH x", "FLUSHALL", "MULTI", "PING", "EXEC"),
            // watched stale in db 1, swapped with an empty db 0
            List.of("SELECT 1", "SET x foo PX 1", "SLEEP", "WATCH x", "SWAPDB 0 1", "MULTI", "PING", "EXEC"),
            // watched missing in db 1, replaced by a stale key from db 0
            List.of("SELECT 0", "SET x foo PX 1", "SLEEP", "SELECT 1", "WATCH x", "SWAPDB 0 1", "MULTI", "PING", "EXEC"),
            // watched missing in db 1, replaced by a stale key, then that one deleted lazily
            List.of("SELECT 0", "SET x foo PX 1", "SLEEP", "SELECT 1", "WATCH x", "SWAPDB 0 1", "EXISTS x", "MULTI", "PING", "EXEC"),
            // watched stale replaced by another stale key
            List.of("SELECT 1", "SET x foo PX 1", "SELECT 0", "SET x bar PX 1", "SLEEP", "SELECT 1", "WATCH x", "SWAPDB 0 1",
                    "MULTI", "PING", "EXEC"),
            // watched stale replaced by a live key: a change
            List.of("SELECT 1", "SET x foo PX 1", "SELECT 0", "SET x bar", "SLEEP", "SELECT 1", "WATCH x", "SWAPDB 0 1",
                    "MULTI", "PING", "EXEC"),
            // watched live key that expires while watched: a change
            List.of("SELECT 0", "SET x foo PX 300", "WATCH x", "SLEEP 400", "MULTI", "PING", "EXEC"));

    @Test
    void execAfterChangesToKeysWatchedExpiredAnswersAsRedis() throws Exception {
        try (RawClient s = new RawClient(SERVERS.spinel().port()); RawClient r = new RawClient(SERVERS.redis().port())) {
            List<String> diffs = new ArrayList<>();
            for (List<String> scenario : SCENARIOS) {
                for (RawClient c : List.of(s, r)) {
                    c.call("FLUSHALL");
                    c.call("DEBUG", "SET-ACTIVE-EXPIRE", "0");
                }
                for (String step : scenario) {
                    if (step.startsWith("SLEEP")) {
                        Thread.sleep(step.equals("SLEEP") ? 5 : Long.parseLong(step.substring(6)));
                        continue;
                    }
                    String[] args = step.split(" ");
                    String spinel = s.callString(args);
                    String redis = r.callString(args);
                    if (!spinel.equals(redis)) {
                        diffs.add(scenario + " at " + step + ": spinel " + spinel.trim() + ", redis " + redis.trim());
                    }
                }
                for (RawClient c : List.of(s, r)) {
                    c.call("UNWATCH");
                    c.call("SELECT", "0");
                }
            }
            for (RawClient c : List.of(s, r)) {
                c.call("DEBUG", "SET-ACTIVE-EXPIRE", "1");
            }
            assertEquals(List.of(), diffs);
        }
    }
}
