package dev.spinel.server.diff;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Scripts against redis-server: numbers written as Lua 5.1 writes them by tostring and table.concat; read-only tables (_G, its metatable, the libraries) keep Redis's protection
 * messages; precompiled chunks (string.dump's output) are refused by loadstring and load,
 * as Redis's Lua refuses them, while source still loads; LuaJ's type errors are worded as Lua 5.1 words them
 * when it has no variable name to give ("attempt to call a nil value"; LuaJ never has one, so where Lua 5.1
 * names a local or a field Spinel's message still lacks the name).
 */
class ScriptLoadAndTypeErrorsDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    private static final List<String> SCRIPTS = List.of(
            "return loadstring(string.dump(function() return 1 end))()",
            "local f, e = loadstring(string.dump(function() return 1 end)); return type(f)",
            "local f, e = loadstring('\\027junk', 'name'); return {type(f), e}",
            "return loadstring('return 1')()",
            "return loadstring('return ...')(5)",
            "local d = string.dump(function() return 7 end); local done = false; "
                    + "local f = load(function() if done then return nil end; done = true; return d end); return type(f)",
            "local done = false; local f = load(function() if done then return nil end; done = true; return 'return 8' end); return f()",
            "return nil .. 'x'",
            "return 'x' .. {}",
            "return 1 + {}",
            "return {} * 2",
            "return (nil)()",
            "return table.concat(cjson.decode('[0.0, -5e3, -1, 0.3e-3, 1023.2, 0e10]'), ' ')",
            "return {tostring(0.0003), tostring(1e100), tostring(2^53), tostring(-1/0), tostring(0.1), tostring(7), tostring('s')}",
            "return {table.concat({1, 2.5, 'x'}, ','), table.concat({}, 'x'), table.concat({1, 2, 3}, '-', 2, 3)}",
            "return table.concat({1, {}, 3})",
            "return {table.concat({a = 1}), table.concat({'x', 'y'}, nil), table.concat({'x', 'y'}, nil, 2)}",
            "return table.concat({1, 2}, ',', 1, 3)",
            "local g = getmetatable(_G); g.__index = {}",
            "return type(getmetatable(_G))",
            "return type(getmetatable(redis))",
            "return type(getmetatable(cjson))",
            "local t = setmetatable({}, {__index = function() return 5 end}); return {t.x, type(getmetatable(t))}",
            "return (nil).x");

    @Test
    void loadingAndTypeErrorsAnswerAsRedis() throws Exception {
        try (RawClient s = new RawClient(SERVERS.spinel().port()); RawClient r = new RawClient(SERVERS.redis().port())) {
            List<String> diffs = new ArrayList<>();
            for (String script : SCRIPTS) {
                String redis = r.callString("EVAL", script, "0");
                String spinel = s.callString("EVAL", script, "0");
                if (!redis.equals(spinel)) {
                    diffs.add(script + "\n  spinel: " + spinel.trim() + "\n  redis:  " + redis.trim());
                }
            }
            assertEquals(List.of(), diffs);
        }
    }

    /** setmetatable on a read-only table fails with Redis's words (Redis gives no line; LuaJ adds one). */
    @Test
    void readOnlyTablesRefuseANewMetatable() throws Exception {
        try (RawClient s = new RawClient(SERVERS.spinel().port())) {
            for (String t : List.of("_G", "redis", "cjson", "bit", "getmetatable(_G)")) {
                String reply = s.callString("EVAL", "setmetatable(" + t + ", {})", "0");
                assertEquals(true, reply.startsWith("-ERR ") && reply.contains("Attempt to modify a readonly table"), t + ": " + reply);
            }
        }
    }
}
