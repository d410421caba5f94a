package dev.spinel.server.scripting;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Scripts that ask for more memory than there is: the script fails with Lua's memory error in Redis's words
 * ("Error running script sha, not enough memory", as redis-server 7.0.15 answers when its Lua allocator
 * fails), and the server goes on. (The script-visible limits of unpack, string.byte and string.rep are
 * compared with redis-server in BoundedWorkDiffTest.)
 */
class ScriptMemoryTest {
    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    @Test
    @Timeout(60)
    void aResultNoArrayCanHoldIsLuasMemoryError() throws Exception {
        try (SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0"));
             RawClient c = new RawClient(server.port())) {
            String script = "return string.rep('x', 2^31 - 1)";
            String sha = text(c.call("SCRIPT", "LOAD", script)).split("\r\n")[1];
            assertEquals("-ERR Error running script " + sha + ", not enough memory\r\n", c.callString("EVAL", script, "0"));
            assertEquals("+PONG\r\n", c.callString("PING"));
            c.call("FUNCTION", "LOAD", "#!lua name=big\nredis.register_function('big', function() return string.rep('ab', 2^30) end)");
            assertEquals("-ERR Error running script big, not enough memory\r\n", c.callString("FCALL", "big", "0"));
            assertEquals("$1\r\n3\r\n", c.callString("EVAL", "return tostring(1 + 2)", "0"));
        }
    }
}
