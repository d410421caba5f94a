package dev.spinel.server.diff;

import dev.spinel.server.config.Quoting;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.ReplicationTap;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static dev.spinel.server.testing.Await.waitFor;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * What Spinel and redis-server 7.0.15 propagate to a replica for the same commands, command by command (Redis's
 * Tcl tests read it with attach_to_replication_stream; its "... propagate as ..." tests run only with a server they
 * can SYNC from). Each scenario runs on both servers with a tap attached; a line starting with {@code !block} is
 * sent on a second connection, which is then awaited blocked; timestamps in milliseconds are compared as such.
 */
class PropagationDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    static Stream<List<String>> scenarios() {
        return Stream.of(
                List.of("SET foo bar", "GETDEL foo", "GETDEL foo"),
                List.of("LPUSH mylist{t} a b c", "LMPOP 1 mylist{t} left", "LMPOP 1 mylist{t} right count 1",
                        "LMPOP 2 mylist{t} mylist2{t} left count 10", "LMPOP 2 mylist{t} mylist2{t} left count 10",
                        "RPUSH mylist2{t} 1 2 3", "LMPOP 2 mylist{t} mylist2{t} right count 2"),
                List.of("LPUSH mylist{t} a b c", "RPUSH mylist2{t} 1 2 3", "BLMPOP 0 1 mylist{t} left count 1",
                        "BLMPOP 0 2 mylist{t} mylist2{t} right count 10", "BLMPOP 0 2 mylist{t} mylist2{t} right count 10",
                        "!block BLMPOP 0 1 mylist{t} left count 1", "LPUSH mylist{t} a",
                        "!block BLMPOP 0 2 mylist{t} mylist2{t} left count 5", "LPUSH mylist{t} a b c",
                        "!block BLMPOP 0 2 mylist{t} mylist2{t} right count 10", "RPUSH mylist2{t} a b c"),
                List.of("ZADD myzset{t} 1 one 2 two 3 three", "ZMPOP 1 myzset{t} min", "ZMPOP 1 myzset{t} max count 1",
                        "ZMPOP 2 myzset{t} myzset2{t} min count 10", "ZMPOP 2 myzset{t} myzset2{t} max count 10",
                        "ZADD myzset2{t} 1 one 2 two 3 three", "ZMPOP 2 myzset{t} myzset2{t} min count 2"),
                List.of("ZADD myzset{t} 1 one 2 two 3 three", "ZADD myzset2{t} 4 four 5 five 6 six",
                        "BZMPOP 0 1 myzset{t} min", "BZMPOP 0 2 myzset{t} myzset2{t} max count 10",
                        "BZMPOP 0 2 myzset{t} myzset2{t} max count 10",
                        "!block BZMPOP 0 1 myzset{t} min count 1", "ZADD myzset{t} 1 one",
                        "!block BZMPOP 0 2 myzset{t} myzset2{t} min count 5", "ZADD myzset{t} 1 one 2 two 3 three",
                        "!block BZMPOP 0 2 myzset{t} myzset2{t} max count 10", "ZADD myzset2{t} 4 four 5 five 6 six"),
                List.of("!block BZPOPMIN z1 0", "ZADD z1 1 a 2 b", "!block BZPOPMAX z2 0", "ZADD z2 1 a 2 b",
                        "!block BLPOP l1 0", "RPUSH l1 a b", "!block BRPOP l2 0", "RPUSH l2 a b",
                        "!block BLMOVE l3 l4 left right 0", "RPUSH l3 x", "!block BRPOPLPUSH l5 l6 0", "RPUSH l5 y"),
                List.of("ZADD z1 1 a 2 b 3 c", "BZPOPMIN z1 0", "BZPOPMAX z0 z1 0", "RPUSH l1 a b c", "BLPOP l0 l1 0",
                        "BRPOP l1 0", "RPUSH l3 x y", "BLMOVE l3 l4 LEFT Right 0", "BRPOPLPUSH l3 l4 0", "LMOVE l4 l3 rIGHT left",
                        "SADD s a", "SPOP s", "SADD s a b", "SPOP s 2", "SADD s c", "SPOP s 1", "CONFIG SET lazyfree-lazy-user-del yes",
                        "SET g 1", "GETDEL g", "CONFIG SET lazyfree-lazy-user-del no"),
                List.of("SET foo bar", "DUMP foo", "SET foo2 bar"),
                List.of("SET k v EX 100", "SET k v KEEPTTL", "SET k v PX 100000 GET", "GETEX k PERSIST", "GETEX k EX 100",
                        "EXPIRE k -1", "SET n 1", "INCRBYFLOAT n 1.5", "HSET h f 1", "HINCRBYFLOAT h f 2.5",
                        "SADD s a b c", "SPOP s 0", "SPOP s 5", "SET e 1", "PEXPIRE e 0"),
                List.of("EVAL \"redis.call('set','a','1'); redis.call('incr','a'); return redis.call('get','a')\" 0",
                        "EVAL \"return redis.call('get','a')\" 0", "MULTI", "SET b 1", "GET b", "EXEC",
                        "MULTI", "GET b", "EXEC"));
    }

    @ParameterizedTest
    @MethodSource("scenarios")
    void theSameCommandsArePropagated(List<String> scenario) throws Exception {
        List<List<String>> redis = propagated(SERVERS.redis().port(), scenario);
        List<List<String>> spinel = propagated(SERVERS.spinel().port(), scenario);
        assertEquals(render(redis), render(spinel), String.join("; ", scenario));
    }

    /** What {@code port} propagates for the scenario (the DUMP line's payload becomes a RESTORE of each kind). */
    private static List<List<String>> propagated(int port, List<String> scenario) throws Exception {
        try (RawClient c = new RawClient(port); RawClient blocked = new RawClient(port)) {
            c.call("FLUSHALL");
            try (ReplicationTap tap = ReplicationTap.attach(port)) {
                for (String line : scenario) {
                    if (line.startsWith("!block ")) {
                        blocked.send(args(line.substring(7)));
                        waitFor(() -> c.callString("INFO", "clients").contains("blocked_clients:1"), "blocked: " + line);
                    } else if (line.startsWith("DUMP ")) {
                        byte[] payload = bulk(c.call(args(line)));
                        String key = line.substring(5);
                        c.call(List.of(b("RESTORE"), b(key + "6"), b("100000"), payload));
                        c.call(List.of(b("RESTORE"), b(key + "7"), b(Long.toString(System.currentTimeMillis() + 100_000)), payload, b("ABSTTL")));
                        c.call(List.of(b("RESTORE"), b(key), b("0"), payload, b("REPLACE")));
                    } else {
                        c.call(args(line));
                    }
                    if (!line.startsWith("!block ") && !line.startsWith("MULTI") && blockedBefore(line, scenario)) {
                        blocked.readReply(); // the blocked client was served by this command
                    }
                }
                c.call("INCR", "end-of-scenario");
                return tap.until("incr");
            }
        }
    }

    /** True when the line right before {@code line} blocked a client (the push that serves it). */
    private static boolean blockedBefore(String line, List<String> scenario) {
        int i = scenario.indexOf(line);
        return i > 0 && scenario.get(i - 1).startsWith("!block ");
    }

    private static String render(List<List<String>> cmds) {
        StringBuilder sb = new StringBuilder();
        for (List<String> c : cmds) {
            for (String a : c) {
                sb.append(a.matches("\\d{13}") ? "<ms>" : printable(a)).append(' ');
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    /** Bytes outside printable ASCII as \\xNN, so a RESTORE payload reads in a failure's message. */
    private static String printable(String a) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < a.length(); i++) {
            char ch = a.charAt(i);
            if (ch < 0x20 || ch > 0x7e || ch == '<' || ch == '>') {
                sb.append(String.format("\\x%02x", (int) ch));
            } else {
                sb.append(ch);
            }
        }
        return sb.toString();
    }

    private static List<byte[]> args(String line) {
        List<byte[]> out = new ArrayList<>();
        for (String w : Quoting.split(line)) {
            out.add(b(w));
        }
        return out;
    }

    private static byte[] bulk(byte[] reply) {
        String s = new String(reply, StandardCharsets.ISO_8859_1);
        int nl = s.indexOf("\r\n");
        int len = Integer.parseInt(s.substring(1, nl));
        byte[] out = new byte[len];
        System.arraycopy(reply, nl + 2, out, 0, len);
        return out;
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }
}
