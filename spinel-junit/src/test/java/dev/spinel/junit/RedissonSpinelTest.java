package dev.spinel.junit;

import dev.spinel.server.SpinelServer;
import org.junit.jupiter.api.BeforeAll;

/** Redisson against Spinel, which {@link SpinelTest} starts (and flushes between tests). */
@SpinelTest
class RedissonSpinelTest extends RedissonContract {
    private static int port;

    @BeforeAll // before the superclass's @BeforeEach, which connects
    static void server(SpinelServer server) {
        port = server.port();
    }

    @Override
    int port() {
        return port;
    }
}
