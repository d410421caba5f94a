package dev.spinel.server.durability;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Geo writes in the append-only log, logged as Redis logs them: GEOADD as the ZADD it becomes (scores
 * already encoded), GEORADIUS ... STORE and GEOSEARCHSTORE as received, a search without STORE not at
 * all. Spinel restarted from the log and a real redis-server loading it both show the same sets.
 */
class AofGeoTest {
    @TempDir
    Path dir;

    private SpinelServer start() {
        return AofReplay.startLogging(dir);
    }

    private static String state(RawClient c) throws Exception {
        StringBuilder sb = new StringBuilder();
        for (String k : List.of("Sicily", "near", "dists", "gone")) {
            sb.append(k).append('=').append(c.callString("ZRANGE", k, "0", "-1", "WITHSCORES"));
        }
        return sb.toString();
    }

    @Test
    @Timeout(60)
    void geoWritesAreLoggedAsRedisLogsThem() throws Exception {
        String expected;
        try (SpinelServer s = start(); RawClient c = new RawClient(s.port())) {
            c.call("GEOADD", "Sicily", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania");
            c.call("GEOADD", "Sicily", "CH", "XX", "13.4", "38.1", "Palermo");
            c.call("GEOADD", "Sicily", "NX", "13.4", "38.1", "Palermo"); // no change: not logged
            c.call("GEORADIUS", "Sicily", "15", "37", "200", "km", "STORE", "near");
            c.call("GEORADIUS", "Sicily", "15", "37", "200", "km"); // a read: not logged
            c.call("GEOSEARCHSTORE", "dists", "Sicily", "FROMMEMBER", "Palermo", "BYRADIUS", "300", "km", "STOREDIST");
            c.call("ZADD", "gone", "1", "x");
            c.call("GEORADIUSBYMEMBER", "Sicily", "Palermo", "1", "m", "STORE", "gone"); // only Palermo: stored
            c.call("GEOSEARCHSTORE", "gone", "Sicily", "FROMLONLAT", "0", "0", "BYRADIUS", "1", "km"); // empty: deleted
            expected = state(c);
        }
        String log = AofReplay.incrLogs(dir);
        assertFalse(log.contains("GEOADD") || log.contains("geoadd"), log);
        assertTrue(log.contains("$4\r\nzadd\r\n$6\r\nSicily\r\n$2\r\nCH\r\n$2\r\nXX\r\n$16\r\n3479099937378871\r\n$7\r\nPalermo\r\n"), log);
        assertEquals(2, log.split("zadd", -1).length - 1, log);
        assertEquals(1, log.split("GEORADIUS\r\n", -1).length - 1, log);
        assertEquals(2, log.split("GEOSEARCHSTORE", -1).length - 1, log);
        assertTrue(expected.contains("gone=*0"), expected);

        AofReplay.assertBothReplay(dir, expected, AofGeoTest::state);
    }
}
