package dev.spinel.server.diff;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A stream saved by Redis 5-6.2 (RDB_TYPE_STREAM_LISTPACKS: no entries-read per group) gets its groups'
 * entries-read estimated from the stream's metadata, as Redis 7.0's loader does: the payload of Redis's
 * stream-cgroups unit ("Loading from legacy persistence", a v5 DUMP of a stream with two groups, one of
 * which read 4 entries, trimmed to 2), RESTOREd on both servers, compared through XINFO.
 */
class StreamLegacyRestoreDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    private static final byte[] V5_PAYLOAD = HexFormat.of().parseHex(
            "0f011000000000000000010000000000000000c3404a40571657000000230002010401010184646174610500010301002001"
            + "0381610204200a0001400a0062600a0002400a0063600a4022018164200a4039200a0065600a0005400a0066200a00ff0206"
            + "0002026731050004000000000000000100000000000000003ef783437a01000001000000000000000200000000000000003e"
            + "f783437a01000001000000000000000400000000000000003ef783437a01000001000000000000000500000000000000003e"
            + "f783437a0100000101036331313ef783437a0100000400000000000000010000000000000000000000000000000200000000"
            + "0000000000000000000000040000000000000000000000000000000500000000000000000267320000000009003d52ef6867"
            + "521dfa");

    @Test
    void legacyGroupsGetTheirEntriesReadEstimated() throws Exception {
        assertEquals(transcript(SERVERS.redis().port()), transcript(SERVERS.spinel().port()));
    }

    private static List<String> transcript(int port) throws Exception {
        List<String> out = new ArrayList<>();
        try (RawClient c = new RawClient(port)) {
            c.call("DEL", "x");
            out.add(text(c.call(List.of(bytes("RESTORE"), bytes("x"), bytes("0"), V5_PAYLOAD))));
            out.add(text(c.call("XINFO", "GROUPS", "x")));
            out.add(text(c.call("XLEN", "x")));
            c.call("DEL", "x");
        }
        return out;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    private static String text(byte[] reply) {
        return new String(reply, StandardCharsets.ISO_8859_1);
    }
}
