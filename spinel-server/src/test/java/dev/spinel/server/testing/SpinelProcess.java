package dev.spinel.server.testing;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The command line of a Spinel server in a JVM of its own, for the tests that need a real process (signals, exit
 * status, kill -9, what a fresh process loads or logs), with the test's own class path.
 *
 * <p>The child JVM starts with C1 only and the serial collector: such a child lives for seconds and serves a few
 * thousand requests, so C2's compilations and G1's worker threads cost it more CPU than they ever return (measured
 * on the shared 2-core machine: about a third less CPU up to the listening port). Nothing a test checks depends on
 * the JIT tier or the collector; a test that measures the server's own speed does not belong in a child.
 *
 * <p>Stateless; thread-safe.
 */
public final class SpinelProcess {
    /** The JVM options every child gets (the project's own flags, then the fast-start ones). */
    private static final List<String> JVM_OPTIONS = List.of("--sun-misc-unsafe-memory-access=allow",
            "--enable-native-access=ALL-UNNAMED", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto");

    private SpinelProcess() {
    }

    /** {@code java <options> -cp <the test's class path> dev.spinel.server.Main <serverArgs>}, as a list to add to. */
    public static List<String> command(String... serverArgs) {
        return command(List.of(), serverArgs);
    }

    /** As {@link #command(String...)}, with {@code jvmOptions} (a heap limit, a class-load log) after the default ones. */
    public static List<String> command(List<String> jvmOptions, String... serverArgs) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(JVM_OPTIONS);
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "dev.spinel.server.Main"));
        cmd.addAll(List.of(serverArgs));
        return cmd;
    }
}
