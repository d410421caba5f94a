package dev.spinel.server.diff;

import dev.spinel.protocol.RespReader;
import dev.spinel.protocol.RespValue;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * MONITOR's feed against redis-server (timestamps and client addresses aside): scripts appear before the
 * commands they call, MULTI/EXEC in order, AUTH and HELLO AUTH credentials as "(redacted)" (in SLOWLOG too),
 * arguments quoted as Redis's sdscatrepr quotes every byte; CONFIG SET's values of masterauth, masteruser and
 * requirepass too.
 */
class MonitorDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    private static final List<String[]> COMMANDS = List.of(
            new String[]{"SET", "foo", "bar"},
            new String[]{"EVAL", "redis.call('set',KEYS[1],ARGV[1])", "1", "foo", "bar"},
            new String[]{"EVALSHA", "0000000000000000000000000000000000000000", "0"},
            new String[]{"MULTI"}, new String[]{"SET", "foo", "bar"}, new String[]{"EXEC"},
            new String[]{"AUTH", "someone", "secret"},
            new String[]{"HELLO", "2", "AUTH", "someone", "secret", "SETNAME", "n"},
            new String[]{"SELECT", "2"}, new String[]{"GET", "x"}, new String[]{"SELECT", "0"},
            new String[]{"PING"});

    @Test
    void feedMatchesRedis() throws Exception {
        assertEquals(feed(SERVERS.redis().port()), feed(SERVERS.spinel().port()));
    }

    /**
     * A monitor's own commands: shown to it after their replies (Redis feeds every monitor, itself included), and
     * refused when they touch the keyspace (a monitor is a CLIENT_SLAVE in Redis: "Replica can't interact with the
     * keyspace"), EXEC of such commands too; RESET ends the monitoring.
     */
    @Test
    void aMonitorsOwnCommandsAsRedis() throws Exception {
        assertEquals(ownCommands(SERVERS.redis().port()), ownCommands(SERVERS.spinel().port()));
    }

    private static List<String> ownCommands(int port) throws Exception {
        try (RawClient m = new RawClient(port)) {
            m.call("MONITOR");
            List<String> out = new ArrayList<>();
            for (String[] cmd : List.of(new String[]{"SET", "a", "1"}, new String[]{"GET", "a"},
                    new String[]{"PUBLISH", "ch", "x"}, new String[]{"ECHO", "hi"}, new String[]{"MULTI"},
                    new String[]{"GET", "a"}, new String[]{"EXEC"}, new String[]{"PING"})) {
                out.add(normalized(m.call(cmd)));
                if (!out.getLast().startsWith("-")) {
                    out.add(normalized(m.readReply())); // its own line
                }
            }
            out.add(normalized(m.call("RESET")));
            out.add(normalized(m.call("SET", "a", "2")));
            out.add(normalized(m.call("GET", "a")));
            return out;
        }
    }

    private static String normalized(byte[] reply) {
        return new String(reply, StandardCharsets.UTF_8).trim().replaceFirst("^\\+\\d+\\.\\d+ ", "+TS ")
                .replaceFirst("\\[(\\d+) [0-9.:]+\\]", "[$1 ADDR]");
    }

    @Test
    void slowLogRedactsCredentialsAsRedis() throws Exception {
        assertEquals(slowLogArgs(SERVERS.redis().port()), slowLogArgs(SERVERS.spinel().port()));
    }

    private static List<String> slowLogArgs(int port) throws Exception {
        try (RawClient c = new RawClient(port)) {
            c.call("CONFIG", "SET", "slowlog-log-slower-than", "0");
            c.call("SLOWLOG", "RESET");
            c.call("AUTH", "someone", "secret");
            c.call("HELLO", "2", "AUTH", "someone", "secret", "SETNAME", "n");
            c.call("GET", "x");
            c.call("CONFIG", "SET", "masterauth", ""); // CONFIG SET's sensitive values (multi.tcl, slowlog.tcl)
            c.call("CONFIG", "SET", "maxmemory-samples", "5", "MASTERUSER", "u", "masterauth", "p");
            c.call("CONFIG", "SET", "requirepass", "s3cret", "maxmemory-samples");
            c.call("CONFIG", "SET", "requirepass", "");
            c.call("CONFIG", "SET", "masteruser", "");
            c.call("CONFIG", "SET", "masterauth", "");
            RespValue log = new RespReader(c.call("SLOWLOG", "GET", "9")).read();
            c.call("CONFIG", "SET", "slowlog-log-slower-than", "10000");
            List<String> out = new ArrayList<>();
            for (RespValue entry : ((RespValue.Array) log).items()) {
                List<String> args = new ArrayList<>();
                for (RespValue arg : ((RespValue.Array) ((RespValue.Array) entry).items().get(3)).items()) {
                    args.add(new String(((RespValue.BulkString) arg).value(), StandardCharsets.UTF_8));
                }
                out.add(String.join(" ", args));
            }
            return out;
        }
    }

    private static byte[] everyByte() {
        byte[] b = new byte[256];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) i;
        }
        return b;
    }

    private static List<String> feed(int port) throws Exception {
        try (RawClient monitor = new RawClient(port); RawClient c = new RawClient(port)) {
            monitor.call("MONITOR");
            c.call(List.of("SET".getBytes(StandardCharsets.US_ASCII), "all-bytes".getBytes(StandardCharsets.US_ASCII),
                    everyByte())); // every byte's quoting: escapes, \xhh, printable
            for (String[] cmd : COMMANDS) {
                c.call(cmd);
            }
            List<String> lines = new ArrayList<>();
            while (lines.isEmpty() || !lines.get(lines.size() - 1).contains("\"PING\"")) {
                String line = new String(monitor.readReply(), StandardCharsets.UTF_8).trim();
                lines.add(line.replaceFirst("^\\+\\d+\\.\\d+ ", "+TS ").replaceFirst("\\[(\\d+) [0-9.:]+\\]", "[$1 ADDR]"));
            }
            return lines;
        }
    }
}
