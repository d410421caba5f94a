package dev.spinel.server.scripting;

import dev.spinel.server.errors.RedisError;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.Prototype;
import org.luaj.vm2.compiler.LuaC;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The scripts cache of EVAL / SCRIPT LOAD: script bodies by the SHA1 of their bytes (lower-case hex,
 * as Redis computes it), each compiled once to a Lua prototype. Compilation is independent of any
 * Lua state, so SCRIPT LOAD runs without the stripes a script run takes.
 *
 * <p>Thread-safety: concurrent; a prototype is immutable once compiled.
 */
public final class ScriptCache {
    /**
     * A compiled script. {@code readOnly}/{@code allowOom} come from a {@code #!lua flags=...} shebang;
     * {@code shebang} tells whether the script declared one. {@code allowCrossSlot}: in cluster mode the script
     * may touch keys of several slots (a script without a shebang, as Redis's eval compatibility mode, or one
     * with {@code allow-cross-slot-keys}).
     */
    public record Script(String sha, byte[] body, Prototype proto, boolean shebang, boolean readOnly, boolean allowOom,
                         boolean allowCrossSlot, boolean noCluster, boolean allowStale) {
    }

    private final ConcurrentHashMap<String, Script> scripts = new ConcurrentHashMap<>();
    private final AtomicLong bodyBytes = new AtomicLong();

    /** The cached script with this SHA1 (any case), or null. */
    public Script get(String sha) {
        return scripts.get(sha.toLowerCase(Locale.ROOT));
    }

    /** Compiles {@code body} (if not cached yet) and caches it; throws the compile error as Redis words it. */
    public Script load(byte[] body) {
        String sha = sha1hex(body);
        Script s = scripts.get(sha);
        if (s != null) {
            return s;
        }
        s = compile(sha, body);
        if (scripts.putIfAbsent(sha, s) == null) {
            bodyBytes.addAndGet(body.length + 40);
        }
        return s;
    }

    public boolean exists(String sha) {
        return get(sha) != null;
    }

    /** SCRIPT FLUSH. */
    public void flush() {
        scripts.clear();
        bodyBytes.set(0);
    }

    public int size() {
        return scripts.size();
    }

    /** Bytes of cached script bodies and their names (INFO used_memory_scripts_eval; an estimate). */
    public long memory() {
        return bodyBytes.get();
    }

    /**
     * The flags ({@link FunctionLibraries#NO_WRITES}, {@link FunctionLibraries#ALLOW_OOM}) a body's
     * {@code #!lua flags=...} line declares, or -1 when it has no shebang or an invalid one (its run says why).
     * Read by the dispatcher before the script is compiled (CLIENT PAUSE WRITE), as Redis's
     * evalExtractShebangFlags.
     */
    public static int declaredFlags(byte[] body) {
        if (body.length < 2 || body[0] != '#' || body[1] != '!') {
            return -1;
        }
        int eol = 0;
        while (eol < body.length && body[eol] != '\n') {
            eol++;
        }
        try {
            return shebangFlags(body, eol);
        } catch (RedisError e) {
            return -1;
        }
    }

    private static int shebangFlags(byte[] body, int eol) {
        String line = new String(body, 0, eol, StandardCharsets.UTF_8);
        String[] parts = line.split(" ");
        if (!parts[0].equals("#!lua")) {
            throw new RedisError("ERR Unexpected engine in script shebang: " + parts[0]);
        }
        int flags = 0;
        for (int i = 1; i < parts.length; i++) {
            if (parts[i].isEmpty()) {
                continue;
            }
            if (!parts[i].startsWith("flags=")) {
                throw new RedisError("ERR Unknown lua shebang option: " + parts[i]);
            }
            for (String f : parts[i].substring(6).split(",")) {
                switch (f) {
                    case "no-writes" -> flags |= FunctionLibraries.NO_WRITES;
                    case "allow-oom" -> flags |= FunctionLibraries.ALLOW_OOM;
                    case "allow-cross-slot-keys" -> flags |= FunctionLibraries.ALLOW_CROSS_SLOT_KEYS;
                    case "no-cluster" -> flags |= FunctionLibraries.NO_CLUSTER;
                    case "allow-stale" -> flags |= FunctionLibraries.ALLOW_STALE;
                    case "" -> { }
                    default -> throw new RedisError("ERR Unexpected flag in script shebang: " + f);
                }
            }
        }
        return flags;
    }

    private static Script compile(String sha, byte[] body) {
        boolean shebang = false;
        boolean readOnly = false;
        boolean allowOom = false;
        boolean allowCrossSlot = true;
        boolean noCluster = false;
        boolean allowStale = false;
        byte[] source = body;
        if (body.length >= 2 && body[0] == '#' && body[1] == '!') {
            int eol = 0;
            while (eol < body.length && body[eol] != '\n') {
                eol++;
            }
            int flags = shebangFlags(body, eol);
            readOnly = (flags & FunctionLibraries.NO_WRITES) != 0;
            allowOom = (flags & FunctionLibraries.ALLOW_OOM) != 0;
            allowCrossSlot = (flags & FunctionLibraries.ALLOW_CROSS_SLOT_KEYS) != 0;
            noCluster = (flags & FunctionLibraries.NO_CLUSTER) != 0;
            allowStale = (flags & FunctionLibraries.ALLOW_STALE) != 0;
            shebang = true;
            source = Arrays.copyOf(body, body.length);
            Arrays.fill(source, 0, eol, (byte) ' '); // compiled without the shebang, line numbers kept
        }
        try {
            Prototype p = LuaC.instance.compile(new ByteArrayInputStream(source), "@user_script");
            noTailCalls(p);
            return new Script(sha, body, p, shebang, readOnly, allowOom, allowCrossSlot, noCluster, allowStale);
        } catch (LuaError e) {
            throw new RedisError("ERR Error compiling script (new function): " + LuaErrors.luaText(e.getMessage())
                    .replace("unexpected symbol 286 (\u011e)", "unexpected symbol near '<eof>'"));
        } catch (IOException e) {
            throw new RedisError("ERR Error compiling script (new function): " + e.getMessage());
        }
    }

    /**
     * Turns every {@code return f(...)} tail call into a call followed by the return already there
     * ({@code TAILCALL A B 0; RETURN A 0} → {@code CALL A B 0; RETURN A 0}, same results). LuaJ runs a
     * tail call after the calling frame is gone, so an error raised by {@code return redis.call(...)}
     * would have no script line; with a plain call it has the line Redis reports.
     */
    static void noTailCalls(Prototype p) {
        for (int i = 0; i < p.code.length; i++) {
            if ((p.code[i] & 0x3f) == org.luaj.vm2.Lua.OP_TAILCALL) {
                p.code[i] = (p.code[i] & ~0x3f) | org.luaj.vm2.Lua.OP_CALL;
            }
        }
        if (p.p != null) {
            for (Prototype inner : p.p) {
                noTailCalls(inner);
            }
        }
    }

    /** Lower-case hex SHA1 of {@code data} (redis.sha1hex, script names). */
    public static String sha1hex(byte[] data) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-1").digest(data);
            StringBuilder sb = new StringBuilder(40);
            for (byte b : d) {
                sb.append(Character.forDigit((b >> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
            }
            return sb.toString();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
