package dev.spinel.junit;

import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/** The same Redisson contract against redis-server, so that each expectation is Redis's own. */
class RedissonRedisTest extends RedissonContract {
    private static RedisServerProcess redis;

    @BeforeAll
    static void start() {
        redis = RedisServerProcess.start();
    }

    @AfterAll
    static void stop() {
        redis.close();
    }

    @Override
    int port() {
        return redis.port();
    }
}
