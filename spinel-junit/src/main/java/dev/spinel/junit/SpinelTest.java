package dev.spinel.junit;

import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated test class against an in-process Spinel on a free port of 127.0.0.1:
 * <pre>{@code
 * @SpinelTest
 * class CartTest {
 *     @Test
 *     void addsItems(@SpinelPort int port) {
 *         try (Jedis jedis = new Jedis("127.0.0.1", port)) { ... }
 *     }
 * }
 * }</pre>
 * Test methods, lifecycle methods and constructors may take {@link dev.spinel.server.SpinelServer}, a {@link java.net.URI}
 * ({@code redis://127.0.0.1:port}) or an {@code int} annotated {@link SpinelPort}. Same as
 * {@code @ExtendWith(SpinelExtension.class)} with the defaults below.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(SpinelExtension.class)
public @interface SpinelTest {
    /** One server for the whole class (the default), or a new one for every test. */
    Lifecycle lifecycle() default Lifecycle.PER_CLASS;

    /** With one server per class: FLUSHALL before every test, so tests do not see each other's keys. */
    boolean flushBetweenTests() default true;

    /** Configuration directives as {@code "name value"} pairs, e.g. {@code {"maxmemory 10mb", "appendonly no"}}. */
    String[] config() default {};

    enum Lifecycle {
        PER_CLASS,
        PER_TEST
    }
}
