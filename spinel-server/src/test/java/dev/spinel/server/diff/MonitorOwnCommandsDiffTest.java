package dev.spinel.server.diff;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A client in MONITOR mode that goes on sending commands, beside redis-server: Redis feeds its own commands to it
 * too (after their replies), refuses it any command that reads or writes the keyspace (a monitor is flagged a
 * replica: "Replica can't interact with the keyspace", EXEC included) and ignores a second MONITOR without a reply.
 * Every reply and line is compared in order, timestamps and client addresses aside.
 */
class MonitorOwnCommandsDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    private static final String PIPELINE = "PING\r\nSET k v\r\nGET k\r\nECHO x\r\nMONITOR\r\nCLIENT GETNAME\r\n"
            + "MULTI\r\nGET k\r\nEXEC\r\nMULTI\r\nECHO y\r\nEXEC\r\nDBSIZE\r\nECHO end\r\n";

    @Test
    void aMonitorSeesItsOwnCommandsAndMayNotTouchKeys() throws Exception {
        List<String> redis = transcript(SERVERS.redis().port());
        assertEquals(redis, transcript(SERVERS.spinel().port()));
        assertEquals("+PONG", redis.get(0)); // the reply first, then its own line
        assertEquals("+TS [0 ADDR] \"PING\"", redis.get(1));
    }

    private static List<String> transcript(int port) throws Exception {
        try (RawClient monitor = new RawClient(port)) {
            monitor.call("MONITOR");
            monitor.sendRaw(PIPELINE.getBytes(StandardCharsets.US_ASCII));
            List<String> out = new ArrayList<>();
            while (out.isEmpty() || !out.get(out.size() - 1).equals("+TS [0 ADDR] \"ECHO\" \"end\"")) {
                String r = new String(monitor.readReply(), StandardCharsets.UTF_8).trim();
                out.add(r.replaceFirst("^\\+\\d+\\.\\d+ ", "+TS ").replaceFirst("\\[(\\d+) [0-9.:]+\\]", "[$1 ADDR]"));
            }
            return out;
        }
    }
}
