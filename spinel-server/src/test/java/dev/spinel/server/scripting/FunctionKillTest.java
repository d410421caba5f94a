package dev.spinel.server.scripting;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A function past busy-reply-threshold: BUSY names FUNCTION KILL, SCRIPT KILL refuses it, FUNCTION STATS
 * shows it, FUNCTION KILL stops it (texts of redis-server 7.0.15). As in {@link ScriptKillTest}, the test
 * talks through the first connection that answers (any, now that the function's own loop is served too).
 */
class FunctionKillTest {
    private static final String BUSY = "-BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.\r\n";

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    @Test
    @Timeout(60)
    void functionKill() throws Exception {
        try (SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0")
                .with("event-loop-threads", "2").with("busy-reply-threshold", "200"));
             RawClient runner = new RawClient(server.port())) {
            assertEquals("$4\r\nloop\r\n", runner.callString("FUNCTION", "LOAD",
                    "#!lua name=loop\nredis.register_function('spin', function() local i = 0 while true do i = i + 1 end end)"));
            assertEquals("-NOTBUSY No scripts in execution right now.\r\n", runner.callString("FUNCTION", "KILL"));
            List<RawClient> others = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                Socket s = new Socket();
                s.connect(new InetSocketAddress("127.0.0.1", server.port()));
                s.setSoTimeout(700);
                others.add(new RawClient(s));
            }
            runner.send(List.of("FCALL".getBytes(), "spin".getBytes(), "0".getBytes()));
            Thread.sleep(500);
            for (RawClient c : others) {
                c.send(List.of("PING".getBytes(StandardCharsets.US_ASCII)));
            }
            RawClient other = null;
            for (RawClient c : others) {
                try {
                    String r = text(c.readReply());
                    assertEquals(BUSY, r);
                    other = c;
                    break;
                } catch (SocketTimeoutException e) {
                    // on the function's loop
                }
            }
            assertNotNull(other, "no connection on another event loop answered BUSY");
            assertEquals(BUSY, other.callString("SCRIPT", "KILL"));
            String stats = other.callString("FUNCTION", "STATS");
            assertTrue(stats.startsWith("*4\r\n$14\r\nrunning_script\r\n*6\r\n$4\r\nname\r\n$4\r\nspin\r\n$7\r\ncommand\r\n*3\r\n$5\r\nFCALL\r\n$4\r\nspin\r\n$1\r\n0\r\n$11\r\nduration_ms\r\n:"),
                    stats);
            assertTrue(stats.endsWith("$7\r\nengines\r\n*2\r\n$3\r\nLUA\r\n*4\r\n$15\r\nlibraries_count\r\n:1\r\n$15\r\nfunctions_count\r\n:1\r\n"), stats);
            assertEquals("+OK\r\n", other.callString("FUNCTION", "KILL"));
            assertEquals("-ERR Script killed by user with SCRIPT KILL... script: spin, on @user_function:2.\r\n", text(runner.readReply()));
            assertEquals("-NOTBUSY No scripts in execution right now.\r\n", other.callString("FUNCTION", "KILL"));
            for (RawClient c : others) {
                c.close();
            }
        }
    }
}
