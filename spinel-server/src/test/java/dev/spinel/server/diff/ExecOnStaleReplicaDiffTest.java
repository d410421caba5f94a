package dev.spinel.server.diff;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * An EXEC whose queued commands a stale replica refuses (link down, replica-serve-stale-data no) is aborted with
 * MASTERDOWN, as Redis's processCommand checks EXEC with its queued commands' flags (multi.tcl "exec with read
 * commands and stale replica state change": the server became a replica after the commands were queued).
 */
class ExecOnStaleReplicaDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    private static List<String> replies(int port) throws Exception {
        List<String> out = new ArrayList<>();
        try (RawClient c = new RawClient(port); RawClient other = new RawClient(port)) {
            c.call("CONFIG", "SET", "replica-serve-stale-data", "no");
            c.call("SET", "xx", "1");
            try {
                for (String[] queued : new String[][] {{"GET", "xx"}, {"PING"}, {"INFO", "server"}, {"SET", "yy", "2"}}) {
                    out.add(c.callString("MULTI"));
                    out.add(c.callString(queued));
                    out.add(other.callString("REPLICAOF", "localhsot", "0"));
                    String exec = c.callString("EXEC");
                    out.add(exec.startsWith("*1\r\n$") ? "an INFO reply" : exec);
                    out.add(other.callString("REPLICAOF", "NO", "ONE"));
                }
                out.add(c.callString("MULTI")); // queued while stale, run after the link is back to a master
                out.add(other.callString("REPLICAOF", "localhsot", "0"));
                out.add(c.callString("GET", "xx"));
                out.add(other.callString("REPLICAOF", "NO", "ONE"));
                out.add(c.callString("EXEC"));
            } finally {
                other.call("REPLICAOF", "NO", "ONE");
                c.call("CONFIG", "SET", "replica-serve-stale-data", "yes");
            }
        }
        return out;
    }

    @Test
    void execOfCommandsAStaleReplicaRefusesIsAborted() throws Exception {
        assertEquals(replies(SERVERS.redis().port()), replies(SERVERS.spinel().port()));
    }
}
