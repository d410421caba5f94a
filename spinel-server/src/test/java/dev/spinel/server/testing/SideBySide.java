package dev.spinel.server.testing;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.nio.file.Path;
import java.util.List;

/**
 * An embedded Spinel and a real redis-server, started once for a test class and stopped after it,
 * for differential tests: {@code @RegisterExtension static final SideBySide servers = new SideBySide();}
 */
public final class SideBySide implements BeforeAllCallback, AfterAllCallback {
    private final String[] settings;
    private RedisServerProcess redis;
    private SpinelServer spinel;

    /** Both servers with their defaults. */
    public SideBySide() {
        this(new String[0]);
    }

    /** Both servers with the same directives, as name/value pairs (e.g. "enable-debug-command", "yes"). */
    public SideBySide(String... settings) {
        if (settings.length % 2 != 0) {
            throw new IllegalArgumentException("name/value pairs expected");
        }
        this.settings = settings.clone();
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        String[] redisArgs = new String[settings.length];
        ServerConfig config = ServerConfig.defaults().with("port", "0");
        for (int i = 0; i < settings.length; i += 2) {
            redisArgs[i] = "--" + settings[i];
            redisArgs[i + 1] = settings[i + 1];
            config = config.with(settings[i], settings[i + 1]);
        }
        redis = RedisServerProcess.start(redisArgs);
        spinel = SpinelServer.start(config);
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

    /** What a test does over one connection, as the lines it records to compare. */
    @FunctionalInterface
    public interface Transcript {
        List<String> of(RawClient c) throws Exception;
    }

    /**
     * Runs {@code t} against a fresh redis-server, then against a fresh Spinel writing its files under
     * {@code spinelDir}, both started with {@code settings} (name/value pairs): the two transcripts, Redis's first.
     */
    public static List<List<String>> transcripts(Path spinelDir, Transcript t, String... settings) throws Exception {
        String[] redisArgs = new String[settings.length];
        ServerConfig config = ServerConfig.defaults().with("port", "0").with("dir", spinelDir.toString());
        for (int i = 0; i < settings.length; i += 2) {
            redisArgs[i] = "--" + settings[i];
            redisArgs[i + 1] = settings[i + 1];
            config = config.with(settings[i], settings[i + 1]);
        }
        List<String> redisLines;
        try (RedisServerProcess redis = RedisServerProcess.start(redisArgs); RawClient c = new RawClient(redis.port())) {
            redisLines = t.of(c);
        }
        try (SpinelServer spinel = SpinelServer.start(config); RawClient c = new RawClient(spinel.port())) {
            return List.of(redisLines, t.of(c));
        }
    }

    public SpinelServer spinel() {
        return spinel;
    }

    public RedisServerProcess redis() {
        return redis;
    }
}
