package dev.spinel.junit;

import dev.spinel.server.SpinelServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Spring Boot's Redis auto-configuration (Lettuce, the default) pointed at Spinel by {@link SpinelSpring}. */
@SpringBootTest(classes = SpringBootLettuceTest.App.class)
class SpringBootLettuceTest {
    static final SpinelServer SPINEL = SpinelServer.startEphemeral();

    @DynamicPropertySource
    static void redis(DynamicPropertyRegistry registry) {
        SpinelSpring.redisProperties(SPINEL, registry::add);
    }

    @AfterAll
    static void stop() {
        SPINEL.close();
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
    }

    @Autowired
    StringRedisTemplate redis;
    @Autowired
    RedisConnectionFactory factory;

    @Test
    void readsAndWritesSpinel() {
        assertInstanceOf(LettuceConnectionFactory.class, factory);
        redis.opsForValue().set("spring", "boot", Duration.ofMinutes(5));
        assertEquals("boot", redis.opsForValue().get("spring"));
        assertTrue(redis.getExpire("spring") > 0);
        redis.opsForHash().put("h", "f", "v");
        assertEquals("v", redis.opsForHash().get("h", "f"));
        assertEquals(2L, SPINEL.engine().keyspace().db(0).size(), "the keys are in Spinel");
    }
}
