package dev.spinel.server.testing;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * An embedded Spinel and a real redis-server, started once for a test class and stopped after it,
 * for differential tests: {@code @RegisterExtension static final SideBySide servers = new SideBySide();}
 */
public final class SideBySide implements BeforeAllCallback, AfterAllCallback {
    private RedisServerProcess redis;
    private SpinelServer spinel;

    @Override
    public void beforeAll(ExtensionContext context) {
        redis = RedisServerProcess.start();
        spinel = SpinelServer.start(ServerConfig.defaults().with("port", "0"));
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (spinel != null) {
            spinel.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    public SpinelServer spinel() {
        return spinel;
    }

    public RedisServerProcess redis() {
        return redis;
    }
}
