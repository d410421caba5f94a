package dev.spinel.server.diff;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A script returning a self-referencing (or very deeply nested) table: Redis writes levels until Lua's stack
 * limit and puts "reached lua stack limit" in place of the next one; Spinel's reply is byte for byte the same,
 * for arrays, maps and sets, in RESP2 and RESP3, and the connection goes on.
 */
class ScriptReplyDepthDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    private static final List<String> SCRIPTS = List.of(
            "local a = {}; local b = {a}; a[1] = b; return a",
            "local a = {'x', 1}; a[3] = a; return a",
            "local m = {}; local a = {map = m}; m['k'] = a; return a",
            "local m = {}; local a = {map = m}; m[1] = a; return a",
            "local s = {}; local a = {set = s}; s[1] = 'x'; local b = {a}; s[b] = true; return a",
            "local t = {}; local cur = t; for i = 1, 7990 do local n = {}; cur[1] = n; cur = n end; cur[1] = 'leaf'; return t");

    @Test
    @Timeout(60)
    void deepRepliesEndAtLuasStackLimitAsInRedis() throws Exception {
        try (RawClient s = new RawClient(SERVERS.spinel().port()); RawClient r = new RawClient(SERVERS.redis().port())) {
            for (String protocol : List.of("2", "3")) {
                s.call("HELLO", protocol);
                r.call("HELLO", protocol);
                for (String script : SCRIPTS) {
                    byte[] redis = reply(r, script);
                    byte[] spinel = reply(s, script);
                    assertArrayEquals(redis, spinel, "RESP" + protocol + ": " + script);
                    assertEquals("+PONG\r\n", s.callString("PING"));
                }
            }
        }
    }

    /** The whole reply: the nested headers, then the error or the leaf in their place. */
    private static byte[] reply(RawClient c, String script) throws Exception {
        return c.call("EVAL", script, "0");
    }
}
