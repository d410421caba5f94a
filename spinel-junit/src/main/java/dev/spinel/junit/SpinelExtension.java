package dev.spinel.junit;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.util.Optional;

/**
 * The JUnit 5 extension behind {@link SpinelTest}: starts an in-process {@link SpinelServer} on a free port when the
 * class starts (or before each test with {@link SpinelTest.Lifecycle#PER_TEST}), stops it when the class (or test)
 * ends, FLUSHALLs before each test of a shared server, and resolves {@link SpinelServer}, {@link URI} and
 * {@code @SpinelPort int} parameters. A class using {@code @ExtendWith(SpinelExtension.class)} without
 * {@link SpinelTest} gets the defaults. Nested classes share their outer class's server.
 *
 * <p>Thread-safety: JUnit calls it from the thread running the class; servers live in JUnit's extension store,
 * which closes them (even when a test fails).
 */
public final class SpinelExtension implements BeforeAllCallback, BeforeEachCallback, ParameterResolver {
    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(SpinelExtension.class);
    private static final String SERVER = "server";

    /** Holds a server in JUnit's store, which calls {@link #close} when the owning context ends. */
    private record Running(SpinelServer server) implements ExtensionContext.Store.CloseableResource {
        @Override
        public void close() {
            server.close();
        }
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        SpinelTest settings = settings(context);
        if (settings == null || settings.lifecycle() == SpinelTest.Lifecycle.PER_CLASS) {
            if (find(context) == null) { // a nested class reuses its outer class's server
                context.getStore(NS).put(SERVER, new Running(start(settings)));
            }
        }
    }

    @Override
    public void beforeEach(ExtensionContext context) {
        SpinelTest settings = settings(context);
        if (settings != null && settings.lifecycle() == SpinelTest.Lifecycle.PER_TEST) {
            context.getStore(NS).put(SERVER, new Running(start(settings)));
        } else if (settings == null || settings.flushBetweenTests()) {
            flushAll(server(context));
        }
    }

    @Override
    public boolean supportsParameter(ParameterContext p, ExtensionContext e) {
        Class<?> type = p.getParameter().getType();
        return type == SpinelServer.class || type == URI.class || (type == int.class && p.isAnnotated(SpinelPort.class));
    }

    @Override
    public Object resolveParameter(ParameterContext p, ExtensionContext e) {
        SpinelServer server = find(e);
        if (server == null) {
            // PER_TEST: a @BeforeAll method or the constructor asks before any test has its server
            throw new ParameterResolutionException("No Spinel server yet: with lifecycle PER_TEST only test methods and "
                    + "@BeforeEach/@AfterEach methods can take it");
        }
        Class<?> type = p.getParameter().getType();
        if (type == SpinelServer.class) {
            return server;
        }
        if (type == URI.class) {
            return uri(server);
        }
        return server.port();
    }

    /** {@code redis://127.0.0.1:port}, the form Lettuce, Redisson and Spring take. */
    public static URI uri(SpinelServer server) {
        return URI.create("redis://127.0.0.1:" + server.port());
    }

    /** The server the current test sees (its own, or its class's, or an outer class's). */
    public static SpinelServer server(ExtensionContext context) {
        SpinelServer s = find(context);
        if (s == null) {
            throw new ExtensionConfigurationException("No Spinel server in this context");
        }
        return s;
    }

    private static SpinelServer find(ExtensionContext context) {
        Running r = context.getStore(NS).get(SERVER, Running.class); // looks in the parent contexts too
        return r == null ? null : r.server();
    }

    private static SpinelTest settings(ExtensionContext context) {
        return context.getTestClass().flatMap(SpinelExtension::findSettings).orElse(null);
    }

    private static Optional<SpinelTest> findSettings(Class<?> c) {
        for (Class<?> k = c; k != null; k = k.getEnclosingClass()) {
            var found = AnnotationSupport.findAnnotation(k, SpinelTest.class);
            if (found.isPresent()) {
                return found;
            }
        }
        return Optional.empty();
    }

    private static SpinelServer start(SpinelTest settings) {
        ServerConfig config = ServerConfig.defaults().with("port", "0");
        if (settings != null) {
            for (String directive : settings.config()) {
                String d = directive.trim();
                int sp = d.indexOf(' ');
                if (sp < 0) {
                    throw new ExtensionConfigurationException("@SpinelTest config needs \"name value\": " + directive);
                }
                config.with(d.substring(0, sp), d.substring(sp + 1).trim());
            }
        }
        return SpinelServer.start(config);
    }

    /** FLUSHALL as a client sends it, so it takes the engine's ordinary path (log, notifications, tracking). */
    private static void flushAll(SpinelServer server) {
        try (SpinelConnection c = new SpinelConnection(server)) {
            c.call("FLUSHALL");
        } catch (IOException e) {
            throw new UncheckedIOException("FLUSHALL before the test failed", e);
        }
    }
}
