package dev.spinel.server.diff;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * SCRIPT KILL / FUNCTION KILL stop a script that catches the kill error with pcall and calls again in a loop
 * (Redis then raises the error on every line, so the loop around the pcall gets it): the caller gets the same
 * error as from redis-server 7.0.15, and the server answers again.
 */
class ScriptKillThroughPcallDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide("busy-reply-threshold", "50");

    private static final String LOOP = "local f = function() while 1 do redis.call('ping') end end while 1 do pcall(f) end";

    private static String killed(int port, List<String> call, String kill) throws Exception {
        try (RawClient runner = new RawClient(port); RawClient other = new RawClient(port)) {
            runner.send(call.stream().map(s -> s.getBytes(StandardCharsets.UTF_8)).toList());
            // Wait until the script is busy (BUSY), then kill it.
            String ping;
            long deadline = System.nanoTime() + 5_000_000_000L;
            do {
                Thread.sleep(20);
                ping = other.callString("PING");
            } while (!ping.startsWith("-BUSY") && System.nanoTime() < deadline);
            assertEquals("+OK\r\n", other.callString(kill, "KILL"), "kill of a busy script");
            String reply = new String(runner.readReply(), StandardCharsets.UTF_8);
            assertEquals("+PONG\r\n", other.callString("PING"), "the server answers once the script is killed");
            return reply;
        }
    }

    @Test
    @Timeout(60)
    void scriptKillStopsAPcallLoop() throws Exception {
        List<String> eval = List.of("EVAL", LOOP, "0");
        assertEquals(killed(SERVERS.redis().port(), eval, "SCRIPT"), killed(SERVERS.spinel().port(), eval, "SCRIPT"));
    }

    @Test
    @Timeout(60)
    void functionKillStopsAPcallLoop() throws Exception {
        String lib = "#!lua name=pcallloop\nredis.register_function{function_name='loop', callback=function() " + LOOP
                + " end, flags={'no-writes'}}";
        for (int port : new int[] {SERVERS.redis().port(), SERVERS.spinel().port()}) {
            try (RawClient c = new RawClient(port)) {
                assertEquals("$9\r\npcallloop\r\n", c.callString("FUNCTION", "LOAD", "REPLACE", lib));
            }
        }
        List<String> fcall = List.of("FCALL", "loop", "0");
        assertEquals(killed(SERVERS.redis().port(), fcall, "FUNCTION"), killed(SERVERS.spinel().port(), fcall, "FUNCTION"));
    }
}
