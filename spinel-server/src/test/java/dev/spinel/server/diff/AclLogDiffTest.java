package dev.spinel.server.diff;

import dev.spinel.protocol.RespReader;
import dev.spinel.protocol.RespValue;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * ACL LOG against redis-server: failed AUTH and HELLO AUTH are logged with Redis's fields, grouping and
 * contexts (the age and the client line differ between servers; their presence and shape are checked).
 */
class AclLogDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    @Test
    void failedAuthenticationsAreLoggedAsRedisLogsThem() throws Exception {
        assertEquals(scenario(SERVERS.redis().port()), scenario(SERVERS.spinel().port()));
    }

    private static List<String> scenario(int port) throws Exception {
        try (RawClient c = new RawClient(port); RawClient other = new RawClient(port)) {
            c.call("ACL", "LOG", "RESET");
            c.call("AUTH", "nouser", "x");
            c.call("auth", "nouser", "x");
            c.call("AUTH", "nouser", "x");
            other.call("HELLO", "2", "AUTH", "someone", "pw");
            c.call("MULTI");
            c.call("AUTH", "nouser", "y");
            c.call("EXEC");
            List<String> out = new ArrayList<>();
            RespValue log = new RespReader(c.call("ACL", "LOG")).read();
            for (RespValue entry : ((RespValue.Array) log).items()) {
                List<RespValue> f = ((RespValue.Array) entry).items();
                StringBuilder sb = new StringBuilder();
                for (int i = 0; i < f.size(); i += 2) {
                    String key = text(f.get(i));
                    String value = f.get(i + 1) instanceof RespValue.Integer n ? Long.toString(n.value()) : text(f.get(i + 1));
                    if (key.equals("age-seconds")) {
                        value = Double.parseDouble(value) < 5 ? "recent" : value;
                    } else if (key.equals("client-info")) {
                        assertTrue(value.startsWith("id=") && value.contains(" cmd="), value);
                        value = value.replaceAll(".* cmd=(\\S+) .*", "cmd=$1");
                    }
                    sb.append(key).append('=').append(value).append(' ');
                }
                out.add(sb.toString());
            }
            out.add(new String(c.call("ACL", "LOG", "1"), StandardCharsets.ISO_8859_1).substring(0, 4));
            out.add(new String(c.call("ACL", "LOG", "RESET"), StandardCharsets.ISO_8859_1));
            out.add(new String(c.call("ACL", "LOG"), StandardCharsets.ISO_8859_1));
            return out;
        }
    }

    private static String text(RespValue v) {
        return switch (v) {
            case RespValue.BulkString b -> new String(b.value(), StandardCharsets.ISO_8859_1);
            case RespValue.SimpleString s -> s.value();
            default -> v.toString();
        };
    }
}
