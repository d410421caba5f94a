package dev.spinel.server.diff;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** A script getting an attribute (dropped) or returning a {verbatim_string={format=..., string=...}} table replies a verbatim string (RESP3) or a bulk (RESP2). */
class ScriptVerbatimReplyDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide("enable-debug-command", "yes");

    private static List<String> replies(int port) throws Exception {
        List<String> out = new ArrayList<>();
        try (RawClient c = new RawClient(port)) {
            out.add(c.callString("DEBUG", "SET-DISABLE-DENY-SCRIPTS", "1"));
            for (String proto : new String[] {"2", "3"}) {
                c.call("HELLO", proto);
                out.add(c.callString("EVAL", "redis.setresp(3) return redis.call('debug', 'protocol', 'verbatim')", "0"));
                out.add(c.callString("EVAL", "return {verbatim_string={format='mkd', string='a\\nb'}}", "0"));
                out.add(c.callString("EVAL", "return {verbatim_string={format='txt', string=1}}", "0"));
                // an attribute before a reply is dropped by the script's parser
                out.add(c.callString("EVAL", "redis.setresp(3) return redis.call('debug', 'protocol', 'attrib')", "0"));
            }
            out.add(c.callString("DEBUG", "SET-DISABLE-DENY-SCRIPTS", "0"));
        }
        return out;
    }

    @Test
    void verbatimTablesReplyAsRedis() throws Exception {
        assertEquals(replies(SERVERS.redis().port()), replies(SERVERS.spinel().port()));
    }
}
