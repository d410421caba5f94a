package dev.spinel.server.diff;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Read-only scripts (EVAL_RO, no-writes) may not call may-replicate commands such as PUBLISH, as in Redis 7.0. */
class ReadOnlyScriptMayReplicateDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    private static String[] replies(int port) throws Exception {
        try (RawClient c = new RawClient(port)) {
            return new String[] {
                c.callString("EVAL_RO", "return redis.call('publish','ch','msg')", "0"),
                c.callString("EVAL", "#!lua flags=no-writes\nreturn redis.call('publish','ch','msg')", "0"),
                c.callString("EVAL", "return redis.call('publish','ch','msg')", "0"),
                c.callString("EVAL_RO", "return redis.pcall('publish','ch','msg')['err']", "0")};
        }
    }

    @Test
    void publishRefusedInReadOnlyScripts() throws Exception {
        String[] redis = replies(SERVERS.redis().port());
        String[] spinel = replies(SERVERS.spinel().port());
        for (int i = 0; i < redis.length; i++) {
            assertEquals(redis[i], spinel[i], "reply " + i);
        }
    }
}
