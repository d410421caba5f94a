package dev.spinel.server.diff;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Function names are case-insensitive (FCALL, conflicts between libraries), library names are not: as Redis 7.0. */
class FunctionNameCaseDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    private static String lib(String name, String function) {
        return "#!lua name=" + name + "\nredis.register_function('" + function + "', function(KEYS, ARGV) return '" + name + "' end)";
    }

    @Test
    void functionNamesIgnoreCase() throws Exception {
        List<String[]> script = List.of(
                new String[] {"FUNCTION", "FLUSH"},
                new String[] {"FUNCTION", "LOAD", lib("test", "test")},
                new String[] {"FCALL", "TEST", "0"},
                new String[] {"FCALL_RO", "tEsT", "0"},
                new String[] {"FUNCTION", "LOAD", lib("TEST", "Test")},
                new String[] {"FUNCTION", "LOAD", lib("other", "TeSt")},
                new String[] {"FUNCTION", "LOAD", lib("other", "other")},
                new String[] {"FUNCTION", "LOAD", "REPLACE", lib("test", "TEST")},
                new String[] {"FCALL", "test", "0"},
                new String[] {"FUNCTION", "DELETE", "TEST"},
                new String[] {"FUNCTION", "DELETE", "test"},
                new String[] {"FCALL", "test", "0"},
                new String[] {"FUNCTION", "FLUSH"});
        try (RawClient s = new RawClient(SERVERS.spinel().port()); RawClient r = new RawClient(SERVERS.redis().port())) {
            List<String> diffs = new ArrayList<>();
            for (String[] cmd : script) {
                String redis = r.callString(cmd);
                String spinel = s.callString(cmd);
                if (!redis.equals(spinel)) {
                    diffs.add(String.join(" ", cmd).replace('\n', ' ') + ": spinel " + spinel.trim() + ", redis " + redis.trim());
                }
            }
            assertEquals(List.of(), diffs);
        }
    }
}
