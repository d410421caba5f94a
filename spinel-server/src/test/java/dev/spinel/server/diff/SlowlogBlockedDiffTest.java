package dev.spinel.server.diff;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A command that blocks is logged in the slow log when it is served, with the arguments its client sent,
 * not when it blocks nor when it times out (Redis 7.0's updateStatsOnUnblock): the newest entries' commands match Redis's.
 */
class SlowlogBlockedDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    @Test
    void blockedCommandsAreLoggedWhenUnblocked() throws Exception {
        assertEquals(commands(SERVERS.redis().port()), commands(SERVERS.spinel().port()));
    }

    /** The commands of the slow log's entries, newest first, after a served BLPOP and a timed-out BRPOP. */
    private static String commands(int port) throws Exception {
        try (RawClient c = new RawClient(port); RawClient blocked = new RawClient(port)) {
            c.call("DEL", "l");
            c.call("CONFIG", "SET", "slowlog-log-slower-than", "0");
            c.call("SLOWLOG", "RESET");
            blocked.send(List.of(bytes("BLPOP"), bytes("l"), bytes("0")));
            waitBlocked(c);
            c.call("MULTI");
            c.call("LPUSH", "l", "foo");
            c.call("SLOWLOG", "RESET");
            c.call("EXEC");
            blocked.readReply();
            blocked.call("BRPOP", "l", "0.05");
            String log = c.callString("SLOWLOG", "GET", "10");
            c.call("CONFIG", "SET", "slowlog-log-slower-than", "10000");
            // keep each entry's command (the array after id, time, duration), drop ids, times, client fields
            StringBuilder sb = new StringBuilder();
            for (String part : log.replaceAll("127\\.0\\.0\\.1:\\d+", "CLIENT").split("\\*")) {
                if (part.startsWith("3\r\n$") || part.startsWith("2\r\n$") || part.startsWith("1\r\n$")) {
                    sb.append(part.replaceAll("\r\n", " ")).append('|');
                }
            }
            return sb.toString();
        }
    }

    private static void waitBlocked(RawClient c) throws Exception {
        long deadline = System.currentTimeMillis() + 5000;
        while (!c.callString("INFO", "clients").contains("blocked_clients:1") && System.currentTimeMillis() < deadline) {
            Thread.sleep(5);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
