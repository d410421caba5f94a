package dev.spinel.server.diff;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * INFO commandstats (calls, rejected_calls, failed_calls), errorstats and total_error_replies against
 * redis-server after the cases of Redis's info.tcl and the script cases: errors of commands a script calls
 * are counted once, where they happen; the script's error reply makes it a failed call.
 */
class ErrorStatsDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    private static final Pattern CMDSTAT = Pattern.compile(
            "cmdstat_(\\S+):calls=(\\d+),usec=\\d+,usec_per_call=[\\d.]+,rejected_calls=(\\d+),failed_calls=(\\d+)");
    private static final Pattern ERRSTAT = Pattern.compile("errorstat_(\\S+):count=(\\d+)");

    private static final List<List<String[]>> CASES = List.of(
            List.<String[]>of(new String[]{"AUTH", "k"}),
            List.<String[]>of(new String[]{"MULTI"}, new String[]{"SET", "a", "b"}, new String[]{"AUTH", "a"}, new String[]{"EXEC"}),
            List.<String[]>of(new String[]{"EXEC"}),
            List.<String[]>of(new String[]{"asdf"}),
            List.<String[]>of(new String[]{"CLIENT", "NOSUCH"}),
            List.<String[]>of(new String[]{"MULTI"}, new String[]{"SET"}, new String[]{"EXEC"}),
            List.<String[]>of(new String[]{"SET", "k"}, new String[]{"SET", "k1", "v1"}),
            List.<String[]>of(new String[]{"EVAL", "return redis.pcall('nosuchcmd')", "0"}),
            List.<String[]>of(new String[]{"EVAL", "redis.pcall('incr','k1','x'); return 1", "0"}),
            List.<String[]>of(new String[]{"SET", "s", "x"}, new String[]{"EVAL", "redis.pcall('incr','s'); return 1", "0"}),
            List.<String[]>of(new String[]{"SET", "s", "x"}, new String[]{"EVAL", "return redis.call('incr','s')", "0"}),
            List.<String[]>of(new String[]{"SET", "s", "x"}, new String[]{"EVAL", "return redis.pcall('incr','s')", "0"}),
            List.<String[]>of(new String[]{"EVAL", "return {err='my err'}", "0"}),
            List.<String[]>of(new String[]{"EVAL", "return redis.error_reply('MY err')", "0"}),
            List.<String[]>of(new String[]{"EVAL", "error('x')", "0"}),
            List.<String[]>of(new String[]{"EVAL", "a"}));

    @Test
    void statsAfterEachCaseMatchRedis() throws Exception {
        for (List<String[]> c : CASES) {
            assertEquals(stats(SERVERS.redis().port(), c), stats(SERVERS.spinel().port(), c), describe(c));
        }
    }

    /**
     * Redis's info.tcl "errorstats: blocking commands": a BLPOP ended by CLIENT UNBLOCK ... ERROR is a failed
     * call with an UNBLOCKED error reply; one ended by CLIENT UNBLOCK (TIMEOUT) is a failed call too in
     * redis-server 7.0.15, without an error reply.
     */
    @Test
    void unblockedBlockingCommandCountedAsRedis() throws Exception {
        for (String mode : new String[] {"ERROR", "TIMEOUT"}) {
            assertEquals(unblockStats(SERVERS.redis().port(), mode), unblockStats(SERVERS.spinel().port(), mode), mode);
        }
    }

    private static Map<String, String> unblockStats(int port, String mode) throws Exception {
        try (RawClient blocked = new RawClient(port); RawClient c = new RawClient(port)) {
            String id = blocked.callString("CLIENT", "ID").substring(1).trim();
            c.call("DEL", "list1");
            c.call("CONFIG", "RESETSTAT");
            blocked.send(List.of("BLPOP".getBytes(), "list1".getBytes(), "0".getBytes()));
            for (int i = 0; i < 200 && !c.callString("INFO", "clients").contains("blocked_clients:1"); i++) {
                Thread.sleep(10);
            }
            Map<String, String> out = new TreeMap<>();
            out.put("unblock", c.callString("CLIENT", "UNBLOCK", id, mode));
            out.put("reply", new String(blocked.readReply()));
            Map<String, String> after = readStats(c);
            after.remove("cmd client|unblock");
            after.remove("cmd client|id");
            after.remove("cmd del");
            out.putAll(after);
            return out;
        }
    }

    private static String describe(List<String[]> c) {
        List<String> out = new ArrayList<>();
        for (String[] cmd : c) {
            out.add(String.join(" ", cmd));
        }
        return out.toString();
    }

    private static Map<String, String> stats(int port, List<String[]> commands) throws Exception {
        try (RawClient c = new RawClient(port)) {
            c.call("CONFIG", "RESETSTAT");
            for (String[] cmd : commands) {
                c.call(cmd);
            }
            return readStats(c);
        }
    }

    private static Map<String, String> readStats(RawClient c) throws Exception {
        String info = c.callString("INFO", "everything");
        Map<String, String> out = new TreeMap<>();
        Matcher m = CMDSTAT.matcher(info);
        while (m.find()) {
            if (!m.group(1).equals("info") && !m.group(1).equals("config|resetstat")) {
                out.put("cmd " + m.group(1), m.group(2) + "/" + m.group(3) + "/" + m.group(4));
            }
        }
        m = ERRSTAT.matcher(info);
        while (m.find()) {
            out.put("err " + m.group(1), m.group(2));
        }
        Matcher total = Pattern.compile("total_error_replies:(\\d+)").matcher(info);
        out.put("total", total.find() ? total.group(1) : "?");
        return out;
    }
}
