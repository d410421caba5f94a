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
 * busy-reply-threshold and SCRIPT KILL: past the threshold other clients get BUSY (SCRIPT KILL still
 * runs), SCRIPT KILL stops a script that has not written (its caller gets Redis's error), refuses one
 * that has (UNKILLABLE), and answers NOTBUSY when nothing runs. (Written when the clients of the
 * script's own event loop were not served; every connection answers now, {@link BusyScriptSameLoopTest}.)
 */
class ScriptKillTest {
    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    /** A connection served by another loop than the script's: the first that answers within the timeout. */
    private static RawClient answering(List<RawClient> candidates) throws Exception {
        for (RawClient c : candidates) {
            c.send(List.of("PING".getBytes(StandardCharsets.US_ASCII)));
        }
        for (RawClient c : candidates) {
            try {
                String r = text(c.readReply());
                if (r.startsWith("-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.")) {
                    return c;
                }
            } catch (SocketTimeoutException e) {
                // not answered in time (before the script loop was served, its clients timed out here)
            }
        }
        return null;
    }

    private static List<RawClient> connections(int port, int n) throws Exception {
        List<RawClient> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Socket s = new Socket();
            s.connect(new InetSocketAddress("127.0.0.1", port));
            s.setSoTimeout(700);
            out.add(new RawClient(s));
        }
        return out;
    }

    @Test
    @Timeout(60)
    void busyRepliesAndScriptKill() throws Exception {
        try (SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0")
                .with("event-loop-threads", "2").with("busy-reply-threshold", "200"));
             RawClient runner = new RawClient(server.port())) {
            List<RawClient> others = connections(server.port(), 4);
            try (RawClient idle = others.get(0)) {
                assertEquals("-NOTBUSY No scripts in execution right now.\r\n", idle.callString("SCRIPT", "KILL"));
            }
            others = connections(server.port(), 4);
            runner.send(List.of("EVAL".getBytes(), "local i = 0 while true do i = i + 1 end".getBytes(), "0".getBytes()));
            Thread.sleep(500);
            RawClient other = answering(others);
            assertNotNull(other, "no connection on another event loop answered BUSY");
            assertEquals("+OK\r\n", other.callString("SCRIPT", "KILL"));
            String killed = text(runner.readReply());
            // redis-server 7.0.15's reply, byte for byte
            assertEquals("-ERR Script killed by user with SCRIPT KILL... script: 3fcf51a9b854b8f66cb8685600b0d7df968f4398, on @user_script:1.\r\n", killed);
            assertEquals("+PONG\r\n", other.callString("PING"));
            assertEquals("-NOTBUSY No scripts in execution right now.\r\n", other.callString("SCRIPT", "KILL"));

            // a script that wrote cannot be killed; it runs to its end (about 1.5 s)
            runner.send(List.of("EVAL".getBytes(), ("redis.call('set', KEYS[1], 'w') local t0 = redis.call('time') "
                    + "while true do local t = redis.call('time') "
                    + "if (t[1] - t0[1]) * 1000000 + (t[2] - t0[2]) > 1500000 then break end end return 'done'").getBytes(),
                    "1".getBytes(), "written".getBytes()));
            Thread.sleep(500);
            RawClient other2 = answering(connections(server.port(), 4));
            assertNotNull(other2);
            assertEquals("-UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the script"
                    + " termination or kill the server in a hard way using the SHUTDOWN NOSAVE command.\r\n", other2.callString("SCRIPT", "KILL"));
            assertEquals("$4\r\ndone\r\n", text(runner.readReply()));
            assertEquals("$1\r\nw\r\n", other2.callString("GET", "written"));
        }
    }
}
