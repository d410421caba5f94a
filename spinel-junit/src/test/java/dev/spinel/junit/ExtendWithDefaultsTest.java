package dev.spinel.junit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import redis.clients.jedis.Jedis;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** {@code @ExtendWith(SpinelExtension.class)} alone: the defaults (one server per class, flushed between tests). */
@ExtendWith(SpinelExtension.class)
class ExtendWithDefaultsTest {
    @Test
    void works(@SpinelPort int port) {
        try (Jedis j = new Jedis("127.0.0.1", port)) {
            assertEquals("PONG", j.ping());
        }
    }
}
