package dev.spinel.junit;

import dev.spinel.server.SpinelServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

import java.util.HashSet;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A server per test, configured by the annotation (here with a password, which the flush and the clients use). */
@SpinelTest(lifecycle = SpinelTest.Lifecycle.PER_TEST, config = {"requirepass s3cret", "maxmemory 10mb"})
class SpinelTestPerTestTest {
    static final Set<SpinelServer> SEEN = new HashSet<>();

    @Test
    void one(SpinelServer server) {
        check(server);
    }

    @Test
    void two(SpinelServer server) {
        check(server);
    }

    private static void check(SpinelServer server) {
        assertTrue(SEEN.add(server), "a new server for every test");
        try (Jedis j = new Jedis("127.0.0.1", server.port())) {
            assertThrows(JedisDataException.class, () -> j.get("k"), "NOAUTH");
            j.auth("s3cret");
            assertEquals("10485760", j.configGet("maxmemory").get("maxmemory"));
        }
    }

    @AfterAll
    static void everyServerStopped() {
        assertEquals(2, SEEN.size());
        for (SpinelServer s : SEEN) {
            assertTrue(s.isClosed(), "stopped after its test");
        }
    }
}
