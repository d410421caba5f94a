package dev.spinel.server.scripting;

import dev.spinel.server.scripting.FunctionLibraries.Function;
import dev.spinel.server.scripting.FunctionLibraries.Library;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaFunction;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

/**
 * {@code redis.register_function} while a library loads, as Redis 7.0's {@code luaRegisterFunction}: its two
 * forms (name and callback, or a table of named arguments with flags and a description), checked in Redis's
 * order with Redis's error texts.
 *
 * <p>Thread-safety: stateless; called by {@link FunctionLibraries} under its callers' stripes.
 */
final class RegisterFunction {
    private RegisterFunction() {
    }

    /**
     * Adds the function {@code args} describe to {@code lib} (the library being loaded), or throws the
     * {@link LuaError} Redis's text names.
     */
    static void into(Library lib, Varargs args) {
        int n = args.narg();
        if (n < 1 || n > 2) {
            throw fail("wrong number of arguments to redis.register_function");
        }
        String name = null;
        String description = null;
        LuaFunction callback = null;
        int flags = 0;
        if (n == 1) {
            if (!args.arg1().istable()) {
                throw fail("calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments).");
            }
            LuaTable t = args.arg1().checktable();
            LuaValue k = LuaValue.NIL;
            while (true) {
                Varargs next = t.next(k);
                k = next.arg1();
                if (k.isnil()) {
                    break;
                }
                LuaValue v = next.arg(2);
                if (!k.isstring()) {
                    throw fail("named argument key given to redis.register_function is not a string");
                }
                String key = k.tojstring();
                if (key.equalsIgnoreCase("function_name")) {
                    if (!v.isstring()) {
                        throw fail("function_name argument given to redis.register_function must be a string");
                    }
                    name = v.tojstring();
                } else if (key.equalsIgnoreCase("description")) {
                    if (!v.isstring()) {
                        throw fail("description argument given to redis.register_function must be a string");
                    }
                    description = v.tojstring();
                } else if (key.equalsIgnoreCase("callback")) {
                    if (!v.isfunction()) {
                        throw fail("callback argument given to redis.register_function must be a function");
                    }
                    callback = (LuaFunction) v;
                } else if (key.equalsIgnoreCase("flags")) {
                    if (!v.istable()) {
                        throw fail("flags argument to redis.register_function must be a table representing function flags");
                    }
                    flags = flags(v.checktable());
                } else {
                    throw fail("unknown argument given to redis.register_function");
                }
            }
            if (name == null) {
                throw fail("redis.register_function must get a function name argument");
            }
            if (callback == null) {
                throw fail("redis.register_function must get a callback argument");
            }
        } else {
            if (!args.arg1().isstring()) {
                throw fail("first argument to redis.register_function must be a string");
            }
            if (!args.arg(2).isfunction()) {
                throw fail("second argument to redis.register_function must be a function");
            }
            name = args.arg1().tojstring();
            callback = (LuaFunction) args.arg(2);
        }
        // Redis's functionLibCreateFunction (its text for a bad function name speaks of libraries).
        if (!LibraryMetadata.validName(name)) {
            throw fail("Library names can only contain letters, numbers, or underscores(_) and must be at least one character long");
        }
        if (lib.functions.containsKey(name)) {
            throw fail("Function already exists in the library");
        }
        lib.functions.put(name, new Function(name, description, flags, callback, lib));
    }

    private static int flags(LuaTable t) {
        int flags = 0;
        for (int j = 1; ; j++) {
            LuaValue v = t.get(j);
            if (v.isnil()) {
                return flags;
            }
            int i = v.isstring() ? indexOfIgnoreCase(v.tojstring()) : -1;
            if (i < 0) {
                throw fail("unknown flag given");
            }
            flags |= 1 << i;
        }
    }

    private static int indexOfIgnoreCase(String flag) {
        for (int i = 0; i < FunctionLibraries.FLAGS.size(); i++) {
            if (FunctionLibraries.FLAGS.get(i).equalsIgnoreCase(flag)) {
                return i;
            }
        }
        return -1;
    }

    static LuaError fail(String message) {
        return new LuaError(LuaErrors.plain(message));
    }
}
