package dev.spinel.server;

import java.io.IOException;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Gives back a signal the process was started with ignored, so that its handler can be installed. A shell starts a
 * background job (`redis-server &`, `nohup ... &`) with SIGINT ignored; Redis installs its handler with sigaction
 * whatever it inherited, while the JVM leaves an inherited SIG_IGN for SIGINT, SIGTERM and SIGHUP in place and
 * silently skips the handler. Resetting the disposition to SIG_DFL first (libc {@code signal}, through the foreign
 * function API) lets {@link SignalShutdown} install its handler, so such a server answers SIGINT as Redis does.
 *
 * <p>Thread-safety: called once by the launcher before any handler is installed.
 */
final class IgnoredSignals {
    private IgnoredSignals() {
    }

    /** Resets {@code signo} to its default action if the process inherited it ignored; false if it could not. */
    static boolean restoreIfIgnored(int signo) {
        if (!ignored(signo)) {
            return true;
        }
        try {
            Linker linker = Linker.nativeLinker();
            MethodHandle signal = linker.defaultLookup().find("signal").map(f -> linker.downcallHandle(f,
                    FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.ADDRESS))).orElse(null);
            if (signal == null) {
                return false;
            }
            MemorySegment old = (MemorySegment) signal.invokeExact(signo, MemorySegment.NULL); // NULL is SIG_DFL
            return old.address() != -1L; // SIG_ERR
        } catch (Throwable e) { // no native access, no libc: the inherited disposition stays
            return false;
        }
    }

    /** From /proc/self/status's SigIgn mask (bit signo - 1); false where there is no /proc. */
    static boolean ignored(int signo) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("SigIgn:")) {
                    long mask = Long.parseUnsignedLong(line.substring(7).trim(), 16);
                    return (mask >>> (signo - 1) & 1) != 0;
                }
            }
        } catch (IOException | NumberFormatException e) {
            return false;
        }
        return false;
    }
}
