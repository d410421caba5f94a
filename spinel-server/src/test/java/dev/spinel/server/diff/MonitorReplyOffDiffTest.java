package dev.spinel.server.diff;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * MONITOR under CLIENT REPLY OFF, beside redis-server: the lines of other clients' commands are dropped while replies
 * are off (Redis's prepareClientToWrite refuses the client), so the first thing the monitor reads after CLIENT REPLY
 * ON is that command's +OK. (Monitor lines carry times and ports, so the transcript compares only that reply.)
 */
class MonitorReplyOffDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    @Test
    void aMonitorWithRepliesOffGetsNoLines() throws Exception {
        assertEquals(firstReplyAfterReplyOn(SERVERS.redis().port()), firstReplyAfterReplyOn(SERVERS.spinel().port()));
        assertEquals("+OK\r\n", firstReplyAfterReplyOn(SERVERS.spinel().port()));
    }

    private static String firstReplyAfterReplyOn(int port) throws Exception {
        try (RawClient monitor = new RawClient(port); RawClient other = new RawClient(port)) {
            monitor.sendRaw("CLIENT REPLY OFF\r\nMONITOR\r\n".getBytes(StandardCharsets.US_ASCII));
            Thread.sleep(200); // the MONITOR has run before the other client's commands
            other.call("SET", "monitored", "1");
            other.call("GET", "monitored");
            Thread.sleep(200); // their lines (if any) delivered to the monitor
            monitor.send(List.of("CLIENT".getBytes(), "REPLY".getBytes(), "ON".getBytes()));
            return new String(monitor.readReply(), StandardCharsets.ISO_8859_1);
        }
    }
}
