package dev.spinel.store.types;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * {@code sin}, {@code cos} and {@code asin} of the platform's C math library, the functions Redis's geo
 * distances are computed with. Java's own (fdlibm's {@link StrictMath}, or {@link Math}'s intrinsics) are
 * within one ulp of the true value but not always the same double as glibc's, and one ulp is enough to
 * change a distance's 17th digit (GEOSEARCHSTORE ... STOREDIST), a 4-decimal rounding, or whether a
 * point on a radius's border is in. Falls back to {@link StrictMath} when the C library cannot be
 * reached (no native access).
 *
 * <p>Stateless and thread-safe.
 */
final class CMath {
    private static final MethodHandle SIN = handle("sin");
    private static final MethodHandle COS = handle("cos");
    private static final MethodHandle ASIN = handle("asin");
    private static final boolean NATIVE = SIN != null && COS != null && ASIN != null;

    private CMath() {
    }

    private static MethodHandle handle(String name) {
        try {
            Linker linker = Linker.nativeLinker();
            SymbolLookup libc = linker.defaultLookup();
            return libc.find(name).map(f -> linker.downcallHandle(f,
                    FunctionDescriptor.of(ValueLayout.JAVA_DOUBLE, ValueLayout.JAVA_DOUBLE),
                    Linker.Option.critical(false))).orElse(null);
        } catch (Throwable e) { // IllegalCallerException without native access, UnsupportedOperationException, ...
            return null;
        }
    }

    static double sin(double x) {
        if (NATIVE) {
            try {
                return (double) SIN.invokeExact(x);
            } catch (Throwable e) {
                throw new IllegalStateException(e);
            }
        }
        return StrictMath.sin(x);
    }

    static double cos(double x) {
        if (NATIVE) {
            try {
                return (double) COS.invokeExact(x);
            } catch (Throwable e) {
                throw new IllegalStateException(e);
            }
        }
        return StrictMath.cos(x);
    }

    static double asin(double x) {
        if (NATIVE) {
            try {
                return (double) ASIN.invokeExact(x);
            } catch (Throwable e) {
                throw new IllegalStateException(e);
            }
        }
        return StrictMath.asin(x);
    }
}
