package dev.spinel.server.scripting;

import org.junit.jupiter.api.Test;
import org.luaj.vm2.LuaTable;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The functions' Lua state is made when a library is first loaded, not with the server (issue #15: baseline memory). */
class LazyLuaTest {
    @Test
    void luaStateIsMadeOnFirstLoadOnly() {
        AtomicInteger made = new AtomicInteger();
        FunctionLibraries f = new FunctionLibraries(() -> {
            made.incrementAndGet();
            return new LuaTable();
        }, () -> { });
        assertEquals(0, f.functionCount());
        assertEquals(0, f.codes().size());
        assertNull(f.function("nope"));
        f.flush();
        assertEquals(0, made.get()); // nothing so far needed Lua
        String code = "#!lua name=lib\nredis.register_function('f', function(keys, args) return 1 end)";
        assertEquals("lib", f.load(code.getBytes(StandardCharsets.UTF_8), false));
        assertEquals(1, f.functionCount());
        f.load(code.replace("name=lib", "name=lib2").replace("'f'", "'g'").getBytes(StandardCharsets.UTF_8), false);
        assertEquals(1, made.get()); // one state for every library
    }
}
