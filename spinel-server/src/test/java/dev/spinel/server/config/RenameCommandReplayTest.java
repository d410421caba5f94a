package dev.spinel.server.config;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The append-only log names commands by their own names (SET ... PXAT, DEL for GETDEL) and by the names clients
 * used (propagated as sent): both replay after a restart with the same {@code rename-command} lines, even when the
 * own name was renamed away. (redis-server 7.0.15 refuses such a log, "Unknown command 'DEL' reading the append only
 * file": Spinel does not lose the data instead.)
 */
class RenameCommandReplayTest {
    @TempDir
    Path dir;

    private SpinelServer start() throws Exception {
        return SpinelServer.start(ServerConfig.fromArgs(new String[]{"--port", "0", "--dir", dir.toString(), "--appendonly", "yes",
            "--rename-command", "set", "myset", "--rename-command", "del", "", "--rename-command", "incr", "bump"}));
    }

    private static String state(RawClient c) throws Exception {
        return c.callString("MGET", "a", "b", "c", "d") + c.callString("PTTL", "e");
    }

    @Test
    void theLogReplaysUnderRenamedCommands() throws Exception {
        String before;
        try (SpinelServer server = start(); RawClient c = new RawClient(server.port())) {
            c.call("MYSET", "a", "1");
            c.call("MYSET", "b", "2");
            c.call("GETDEL", "b"); // logged as DEL b
            c.call("BUMP", "c");
            c.call("MYSET", "e", "5", "EX", "1000"); // logged as SET e 5 PXAT <ms>
            c.call("MULTI");
            c.call("MYSET", "d", "4");
            c.call("BUMP", "c");
            c.call("EXEC");
            before = state(c);
            assertEquals("*4\r\n$1\r\n1\r\n$-1\r\n$1\r\n2\r\n$1\r\n4\r\n", before.substring(0, before.indexOf(":")));
        }
        try (SpinelServer server = start(); RawClient c = new RawClient(server.port())) {
            String after = state(c);
            assertEquals(before.substring(0, before.indexOf(":")), after.substring(0, after.indexOf(":")));
            long ttl = Long.parseLong(after.substring(after.indexOf(":") + 1).strip());
            assertEquals(true, ttl > 900_000 && ttl <= 1_000_000, "PTTL of e after the replay: " + ttl);
        }
    }
}
