package dev.spinel.client;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RedisUriTest {
    @Test
    void redissMeansTls() {
        RedisUri u = RedisUri.parse("rediss://alice:p%40ss@cache.example:6380/3");
        assertEquals(new RedisUri("cache.example", 6380, "alice", "p@ss", 3, true), u);
        assertEquals("rediss://alice:***@cache.example:6380/3", u.toString());
        assertTrue(RedisUri.parse("REDISS://localhost").tls());
        RedisUri plain = RedisUri.parse("redis://localhost");
        assertFalse(plain.tls());
        assertEquals(new RedisUri("localhost", 6379, null, null, 0), plain);
        assertEquals("redis://localhost:6379/0", plain.toString());
        assertThrows(IllegalArgumentException.class, () -> RedisUri.parse("http://localhost"));
    }
}
