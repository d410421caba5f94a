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
 * A script that never ends, run by EXEC: every other client, whatever its connection, gets BUSY once the
 * script passes busy-reply-threshold and may SCRIPT KILL it, as in Redis. Spinel ran EXEC's script on the
 * EXEC's event loop, whose other clients then got no answer at all.
 */
class BusyScriptInExecDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    @Test
    void everyClientGetsBusyAndMayKillAScriptRunByExecAsRedis() throws Exception {
        assertEquals(transcript(SERVERS.redis().port()), transcript(SERVERS.spinel().port()));
    }

    private static List<String> transcript(int port) throws Exception {
        List<String> out = new ArrayList<>();
        List<RawClient> others = new ArrayList<>();
        try (RawClient a = new RawClient(port)) {
            out.add(text(a.call("CONFIG", "SET", "busy-reply-threshold", "100")));
            for (int i = 0; i < 8; i++) {
                others.add(new RawClient(port)); // on every event loop
            }
            out.add(text(a.call("MULTI")));
            out.add(text(a.call("EVAL", "while true do end", "0")));
            a.send(List.of("EXEC".getBytes(StandardCharsets.US_ASCII)));
            RawClient probe = new RawClient(port);
            others.add(probe);
            long deadline = System.currentTimeMillis() + 10_000; // the script runs and passes the threshold
            while (!text(probe.call("PING")).startsWith("-BUSY") && System.currentTimeMillis() < deadline) {
                Thread.sleep(50);
            }
            for (RawClient o : others) {
                out.add(text(o.call("PING")));
            }
            out.add(text(others.get(others.size() - 1).call("SCRIPT", "KILL")));
            String exec = text(a.readReply());
            out.add(exec.substring(0, Math.min(exec.length(), 40)));
            out.add(text(a.call("PING")));
            out.add(text(a.call("CONFIG", "SET", "busy-reply-threshold", "5000")));
        } finally {
            for (RawClient o : others) {
                o.close();
            }
        }
        return out;
    }

    private static String text(byte[] reply) {
        return new String(reply, StandardCharsets.ISO_8859_1);
    }
}
