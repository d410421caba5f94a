package dev.spinel.server.durability;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The append-only log with the bitmap commands: SETBIT, BITFIELD and BITOP (storing and deleting)
 * are logged as received; what changes nothing (BITFIELD with only GETs, BITFIELD_RO, a SETBIT of
 * the bit already there) is not logged. Spinel restarted from the log and a real redis-server
 * loading the same directory both show the state Spinel had.
 */
class AofBitmapsTest {
    @TempDir
    Path dir;

    private SpinelServer start() {
        return AofReplay.startLogging(dir);
    }

    private static final List<String> KEYS = List.of("b1", "b2", "and", "not", "gone", "bf");

    private static String state(RawClient c) throws Exception {
        StringBuilder sb = new StringBuilder();
        for (String k : KEYS) {
            sb.append(k).append('=').append(new String(c.call("GET", k), StandardCharsets.ISO_8859_1));
        }
        return sb.toString();
    }

    @Test
    @Timeout(60)
    void bitmapWritesReplayFromTheLogInSpinelAndRedis() throws Exception {
        String expected;
        try (SpinelServer s = start(); RawClient c = new RawClient(s.port())) {
            c.call("SETBIT", "b1", "3", "1");
            c.call("SETBIT", "b1", "3", "1");
            c.call("SETBIT", "b1", "200", "1");
            c.call("SETBIT", "b2", "0", "1");
            c.call("BITFIELD", "bf", "SET", "i16", "#1", "-300", "INCRBY", "u4", "3", "9", "GET", "u8", "0");
            c.call("BITFIELD", "bf", "OVERFLOW", "SAT", "INCRBY", "i8", "0", "500");
            c.call("BITFIELD", "bf", "GET", "u32", "0");
            c.call("BITFIELD_RO", "bf", "GET", "i8", "#0");
            c.call("BITOP", "AND", "and", "b1", "b2");
            c.call("BITOP", "NOT", "not", "bf");
            c.call("SET", "gone", "x");
            c.call("BITOP", "OR", "gone", "missing");
            expected = state(c);
        }
        String log = AofReplay.incrLogs(dir);
        assertEquals(3, count(log, "$6\r\nSETBIT\r\n"), log);
        assertEquals(2, count(log, "$8\r\nBITFIELD\r\n"), log);
        assertEquals(3, count(log, "$5\r\nBITOP\r\n"), log);
        assertFalse(log.contains("BITFIELD_RO"), log);

        AofReplay.assertBothReplay(dir, expected, AofBitmapsTest::state);
        assertTrue(expected.contains("gone=$-1"), expected);
    }

    private static int count(String s, String part) {
        int n = 0;
        for (int i = s.indexOf(part); i >= 0; i = s.indexOf(part, i + 1)) {
            n++;
        }
        return n;
    }
}
