package dev.spinel.junit;

import dev.spinel.server.SpinelServer;

import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * Points Spring Boot's Redis auto-configuration at a Spinel, from a {@code @DynamicPropertySource} method, without this
 * module depending on Spring:
 * <pre>{@code
 * static final SpinelServer SPINEL = SpinelServer.startEphemeral();
 *
 * @DynamicPropertySource
 * static void redis(DynamicPropertyRegistry registry) {
 *     SpinelSpring.redisProperties(SPINEL, registry::add);
 * }
 * }</pre>
 *
 * <p>Thread-safety: stateless.
 */
public final class SpinelSpring {
    private SpinelSpring() {
    }

    /** Adds {@code spring.data.redis.host}, {@code .port} (and {@code .password} when the server requires one). */
    public static void redisProperties(SpinelServer server, BiConsumer<String, Supplier<Object>> registry) {
        registry.accept("spring.data.redis.host", () -> "127.0.0.1");
        registry.accept("spring.data.redis.port", server::port);
        String password = server.config().requirepass.value();
        if (!password.isEmpty()) {
            registry.accept("spring.data.redis.password", () -> password);
        }
    }
}
