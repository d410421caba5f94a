package dev.spinel.server.diff;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A client held by CLIENT PAUSE counts in INFO's blocked_clients, as Redis counts its postponed clients. */
class PausedClientsBlockedDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    @Test
    void pausedWritersCountAsBlocked() throws Exception {
        assertEquals(blockedWhilePaused(SERVERS.redis().port()), blockedWhilePaused(SERVERS.spinel().port()));
    }

    private static String blockedWhilePaused(int port) throws Exception {
        try (RawClient c = new RawClient(port); RawClient writer = new RawClient(port); RawClient reader = new RawClient(port)) {
            c.call("CLIENT", "PAUSE", "100000", "WRITE");
            writer.send(List.of(bytes("SET"), bytes("k"), bytes("v")));
            String readerReply = reader.callString("GET", "k"); // reads go on
            String blocked = "";
            long deadline = System.currentTimeMillis() + 5000;
            while (System.currentTimeMillis() < deadline) {
                blocked = line(c.callString("INFO", "clients"), "blocked_clients:");
                if (!blocked.equals("blocked_clients:0")) {
                    break;
                }
                Thread.sleep(10);
            }
            c.call("CLIENT", "UNPAUSE");
            String written = writer.callString("PING") ; // the SET's reply comes first
            String after = line(c.callString("INFO", "clients"), "blocked_clients:");
            c.call("DEL", "k");
            return readerReply.trim() + " " + blocked + " " + written.trim() + " " + after;
        }
    }

    private static String line(String info, String prefix) {
        for (String l : info.split("\r\n")) {
            if (l.startsWith(prefix)) {
                return l;
            }
        }
        return prefix + "?";
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
