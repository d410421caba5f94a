package dev.spinel.server.scripting;

import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaFunction;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;
import org.luaj.vm2.lib.TwoArgFunction;
import org.luaj.vm2.lib.VarArgFunction;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * Redis 7.0 function libraries: the registry (libraries by name, functions by name across libraries) and
 * FUNCTION LOAD's loading, as Redis's {@code functionsCreateWithLibraryCtx} and the Lua engine's
 * {@code luaEngineCreate} do it, with their error texts.
 *
 * <p>Functions live in their own Lua state (as in Redis, apart from EVAL's). Every chunk of it runs with
 * one environment table whose lookups go to a switchable table: while a library loads, only the load API
 * ({@code redis.register_function}, {@code redis.log}, the {@code LOG_*} levels and the version); the
 * rest of the time, the full globals of the sandbox. The callbacks a library registers keep that same
 * environment, so when FCALL runs them they see the full globals, as in Redis (which swaps the
 * {@code __index} of its globals' metatable the same way).
 *
 * <p>Thread-safety: changes and lookups are made by callers holding every stripe (like scripts), or while
 * the server loads; {@link #codes} may be read from any thread (background saves).
 */
public final class FunctionLibraries {
    /** Script flags of Redis 7.0 ({@code scripts_flags_def}), in its order. */
    public static final List<String> FLAGS = List.of("no-writes", "allow-oom", "allow-stale", "no-cluster", "allow-cross-slot-keys");

    public static final int NO_WRITES = 1;
    public static final int ALLOW_OOM = 2;
    public static final int ALLOW_STALE = 4;
    public static final int NO_CLUSTER = 8;
    public static final int ALLOW_CROSS_SLOT_KEYS = 16;

    /** One registered function; {@code description} may be null. */
    public record Function(String name, String description, int flags, LuaFunction callback, Library library) {
    }

    /** One library: its whole code (shebang included) and its functions in registration order. */
    public static final class Library {
        final String name;
        final byte[] code;
        final Map<String, Function> functions = new LinkedHashMap<>();

        Library(String name, byte[] code) {
            this.name = name;
            this.code = code;
        }

        public String name() {
            return name;
        }

        public byte[] code() {
            return code;
        }

        public Collection<Function> functions() {
            return functions.values();
        }
    }

    private static final Pattern POSITION = Pattern.compile("^@?user_function:(\\d+):? ");

    private final Map<String, Library> libraries = new LinkedHashMap<>();
    private volatile List<byte[]> codes = List.of();
    private volatile int functionCount;
    /** The functions' flags by lower-case name, replaced at each change: read by dispatch without the stripes. */
    private volatile Map<String, Integer> flagsByName = Map.of();
    private final Map<String, Function> functions = new LinkedHashMap<>();
    /** The Lua state that loads libraries and runs their functions: made on first use (see {@link #lua()}). */
    private LuaState lua;
    private final Supplier<LuaTable> redis;
    private final Runnable check;
    /** The library being loaded (register_function adds to it), or null. */
    private Library loading;
    /** When the load in progress started ({@link System#nanoTime}). */
    private long loadStartedAt;
    /** How long a library's code may run while loading, as Redis's LOAD_TIMEOUT_MS. */
    private static final long LOAD_TIMEOUT_NANOS = 500_000_000L;

    /**
     * @param redis the runtime {@code redis} library (call, pcall, log...), asked for when the Lua state is made
     * @param check called every few hundred instructions (FUNCTION KILL, the busy threshold)
     */
    FunctionLibraries(Supplier<LuaTable> redis, Runnable check) {
        this.redis = redis;
        this.check = check;
    }

    /**
     * The Lua state, made when a library is first loaded or a function first called: a server that never uses
     * functions loads no Lua (the interpreter's classes and globals cost about a megabyte). Under the stripes, as
     * every load and call.
     */
    private LuaState lua() {
        LuaState l = lua;
        if (l == null) {
            l = new LuaState();
            lua = l;
        }
        return l;
    }

    private final class LuaState {
        final LuaSandbox sandbox;
        final LuaTable loadApi = new LuaTable();
        /** Where the environment's lookups go: {@link #loadApi} while loading, else the sandbox's globals. */
        LuaTable current;
        /**
         * A Globals (not a plain table) with the sandbox's instruction hook as its debuglib: LuaJ calls the
         * hook (FUNCTION KILL, busy threshold) and records error positions only for closures whose
         * environment is a Globals.
         */
        final org.luaj.vm2.Globals env = new org.luaj.vm2.Globals();

        LuaState() {
            this.sandbox = new LuaSandbox(redis.get(), () -> {
                if (loading != null) {
                    checkLoadTime();
                } else {
                    check.run();
                }
            });
            this.current = sandbox.globals;
            env.debuglib = sandbox.globals.debuglib;
            LuaTable loadRedis = new LuaTable();
            loadRedis.rawset("register_function", new VarArgFunction() {
                @Override
                public Varargs invoke(Varargs args) {
                    register(args);
                    return NONE;
                }
            });
            ScriptRunner.logAndVersion(loadRedis);
            loadApi.rawset("redis", readOnly(loadRedis));
            LuaTable meta = new LuaTable();
            meta.rawset("__index", new TwoArgFunction() {
                @Override
                public LuaValue call(LuaValue t, LuaValue key) {
                    LuaValue v = current == sandbox.globals ? sandbox.env.get(key) : current.rawget(key);
                    if (v.isnil()) {
                        throw new LuaError("Script attempted to access nonexistent global variable '" + key.tojstring() + "'");
                    }
                    return v;
                }
            });
            meta.rawset("__newindex", LuaSandbox.READONLY);
            meta.rawset("__metatable", LuaValue.FALSE);
            env.setmetatable(meta);
        }
    }

    /** A standalone registry (its runtime {@code redis} library empty), for loading files and for tests. */
    public static FunctionLibraries standalone() {
        return new FunctionLibraries(LuaTable::new, () -> { });
    }

    /**
     * FUNCTION LOAD [REPLACE]: compiles and runs {@code code} so that it registers its functions, then
     * adds the library (replacing the one of the same name when {@code replace}). Returns the library's
     * name; throws {@link FunctionError} with Redis's text, leaving the registry unchanged.
     */
    public String load(byte[] code, boolean replace) {
        LibraryMetadata md = LibraryMetadata.parse(code);
        if (!LibraryMetadata.validName(md.name())) {
            throw new FunctionError("Library names can only contain letters, numbers, or underscores(_) and must be at least one character long");
        }
        if (!md.engine().equalsIgnoreCase("lua")) {
            throw new FunctionError("Engine '" + md.engine() + "' not found");
        }
        Library old = libraries.get(md.name());
        if (old != null && !replace) {
            throw new FunctionError("Library '" + md.name() + "' already exists");
        }
        Library lib = new Library(md.name(), code.clone());
        create(lib, md.body());
        if (lib.functions.isEmpty()) {
            throw new FunctionError("No functions registered");
        }
        for (String f : lib.functions.keySet()) {
            Function other = functions.get(key(f));
            if (other != null && other.library() != old) {
                throw new FunctionError("Function " + f + " already exists");
            }
        }
        if (old != null) {
            unlink(old);
        }
        libraries.put(lib.name, lib);
        link(lib.functions);
        publishCodes();
        return lib.name;
    }

    /** FUNCTION RESTORE's policies. */
    public enum RestorePolicy { FLUSH, APPEND, REPLACE }

    /**
     * FUNCTION RESTORE: creates the payload's libraries apart (two of the same name, or two functions of
     * the same name, refuse it), then replaces all libraries with them (FLUSH) or joins them to the
     * existing ones (Redis's {@code libraryJoin}: a library that exists refuses the restore under APPEND
     * and is replaced under REPLACE; a function that exists in another library refuses it). Throws
     * {@link FunctionError} with Redis's text, leaving the registry unchanged.
     */
    public void restore(List<byte[]> codes, RestorePolicy policy) {
        Map<String, Library> incoming = new LinkedHashMap<>();
        Map<String, Function> incomingFunctions = new LinkedHashMap<>();
        for (byte[] code : codes) {
            LibraryMetadata md = LibraryMetadata.parse(code);
            if (!LibraryMetadata.validName(md.name())) {
                throw new FunctionError("Library names can only contain letters, numbers, or underscores(_) and must be at least one character long");
            }
            if (!md.engine().equalsIgnoreCase("lua")) {
                throw new FunctionError("Engine '" + md.engine() + "' not found");
            }
            if (incoming.containsKey(md.name())) {
                throw new FunctionError("Library '" + md.name() + "' already exists");
            }
            Library lib = new Library(md.name(), code.clone());
            create(lib, md.body());
            if (lib.functions.isEmpty()) {
                throw new FunctionError("No functions registered");
            }
            for (String f : lib.functions.keySet()) {
                if (incomingFunctions.containsKey(key(f))) {
                    throw new FunctionError("Function " + f + " already exists");
                }
            }
            incoming.put(lib.name, lib);
            for (Function f : lib.functions.values()) {
                incomingFunctions.put(key(f.name()), f);
            }
        }
        if (policy == RestorePolicy.FLUSH) {
            libraries.clear();
            functions.clear();
        } else {
            List<Library> replaced = new ArrayList<>();
            for (Library lib : incoming.values()) {
                Library old = libraries.get(lib.name);
                if (old != null) {
                    if (policy == RestorePolicy.APPEND) {
                        throw new FunctionError("Library " + lib.name + " already exists");
                    }
                    replaced.add(old);
                }
            }
            for (String f : incomingFunctions.keySet()) {
                Function other = functions.get(f);
                if (other != null && !replaced.contains(other.library())) {
                    throw new FunctionError("Function " + f + " already exists");
                }
            }
            for (Library old : replaced) {
                unlink(old);
            }
        }
        libraries.putAll(incoming);
        functions.putAll(incomingFunctions); // keyed by key() already
        publishCodes();
    }

    /** Runs the library's code in the load environment (Redis's {@code luaEngineCreate}). */
    private void create(Library lib, byte[] body) {
        LuaState lua = lua();
        LuaValue chunk;
        try {
            org.luaj.vm2.Prototype p = org.luaj.vm2.compiler.LuaC.instance.compile(new ByteArrayInputStream(body), "@user_function");
            ScriptCache.noTailCalls(p); // so that errors in `return redis.call(...)` keep their line, as for EVAL
            chunk = new org.luaj.vm2.LuaClosure(p, lua.env);
        } catch (LuaError e) {
            throw new FunctionError("Error compiling function: " + luaText(LuaErrors.chomp(e.getMessage()))
                    .replace("unexpected symbol 286 (\u011e)", "unexpected symbol near '<eof>'"));
        } catch (IOException e) {
            throw new FunctionError("Error compiling function: " + e.getMessage());
        }
        lua.current = lua.loadApi;
        loading = lib;
        loadStartedAt = System.nanoTime();
        try {
            chunk.call();
        } catch (LuaError e) {
            LuaValue obj = e.getMessageObject();
            String text;
            if (obj != null && obj.istable() && obj.rawget("err").isstring()) {
                text = obj.rawget("err").tojstring();
            } else {
                text = "ERR " + luaText(LuaErrors.chomp(e.getMessage()));
            }
            throw new FunctionError("Error registering functions: " + text);
        } catch (StackOverflowError e) {
            throw new FunctionError("Error registering functions: ERR stack overflow");
        } finally {
            loading = null;
            lua.current = lua.sandbox.globals;
        }
    }

    /** Stops a library whose code runs past the load timeout (an endless loop would hold the server forever). */
    private void checkLoadTime() {
        if (System.nanoTime() - loadStartedAt > LOAD_TIMEOUT_NANOS) {
            throw new LuaError(LuaErrors.plain("FUNCTION LOAD timeout"));
        }
    }

    private static String luaText(String message) {
        if (message == null) {
            return "nil";
        }
        Matcher m = POSITION.matcher(message);
        if (m.find()) {
            return "user_function:" + m.group(1) + ": " + message.substring(m.end());
        }
        return message;
    }

    // redis.register_function(name, callback) | redis.register_function{function_name=, callback=, flags=, description=}
    private void register(Varargs args) {
        Library lib = loading;
        if (lib == null) {
            throw RegisterFunction.fail("redis.register_function can only be called on FUNCTION LOAD command");
        }
        RegisterFunction.into(lib, args);
    }

    private void unlink(Library lib) {
        libraries.remove(lib.name);
        for (String f : lib.functions.keySet()) {
            functions.remove(key(f));
        }
    }

    /** FUNCTION DELETE: false when there is no such library. */
    public boolean delete(String name) {
        Library lib = libraries.get(name);
        if (lib == null) {
            return false;
        }
        unlink(lib);
        publishCodes();
        return true;
    }

    /** FUNCTION FLUSH. */
    public void flush() {
        libraries.clear();
        functions.clear();
        publishCodes();
    }

    public Function function(String name) {
        return functions.get(key(name));
    }

    /** Function names are case-insensitive across libraries, as Redis's functions dictionary (not within one library). */
    private static String key(String functionName) {
        return functionName.toLowerCase(Locale.ROOT);
    }

    private void link(Map<String, Function> libraryFunctions) {
        for (Function f : libraryFunctions.values()) {
            functions.put(key(f.name()), f);
        }
    }

    public Collection<Library> libraries() {
        return libraries.values();
    }

    /** The number of functions (readable from any thread, like {@link #codes}). */
    public int functionCount() {
        return functionCount;
    }

    /** The bytes of the libraries' codes (INFO's used_memory_functions: an estimate, not the Lua heap). */
    public long codeBytes() {
        long n = 0;
        for (byte[] c : codes) {
            n += c.length;
        }
        return n;
    }

    /**
     * The libraries' codes, for RDB files, FUNCTION DUMP and AOF rewrites: an immutable list replaced at
     * each change, so that a background save reads it without holding the stripes.
     */
    public List<byte[]> codes() {
        return codes;
    }

    private void publishCodes() {
        List<byte[]> l = new ArrayList<>(libraries.size());
        for (Library lib : libraries.values()) {
            l.add(lib.code);
        }
        codes = List.copyOf(l);
        functionCount = functions.size();
        Map<String, Integer> flags = new HashMap<>();
        for (Map.Entry<String, Function> e : functions.entrySet()) {
            flags.put(e.getKey(), e.getValue().flags());
        }
        flagsByName = Map.copyOf(flags);
    }

    /** The flags of the function named {@code name} (any case), or -1 when there is none; from any thread. */
    public int declaredFlags(String name) {
        Integer f = flagsByName.get(key(name));
        return f == null ? -1 : f;
    }

    /** The environment of the functions' chunks (FCALL runs callbacks against the full globals through it). */
    LuaSandbox sandbox() {
        return lua().sandbox;
    }

    /** Read-only like the sandbox's libraries, and a missing name is an error as on Redis's load API tables. */
    private static LuaTable readOnly(LuaTable table) {
        return LuaSandbox.readOnly(new TwoArgFunction() {
            @Override
            public LuaValue call(LuaValue t, LuaValue key) {
                LuaValue v = table.rawget(key);
                if (v.isnil()) { // Redis's error metatable is on the load API's tables too
                    throw new LuaError("Script attempted to access nonexistent global variable '" + key.tojstring() + "'");
                }
                return v;
            }
        });
    }

    static LuaString bytes(byte[] b) {
        return LuaString.valueOf(b);
    }
}
