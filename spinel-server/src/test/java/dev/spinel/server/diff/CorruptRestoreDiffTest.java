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
 * RESTORE of hand-made quicklist payloads (corrupt-dump.tcl's way: DEBUG SET-SKIP-CHECKSUM-VALIDATION 1 so the CRC
 * need not be right): a ziplist whose entries' prevlen or tail offset do not match is refused with "Bad data
 * format", as Redis's ziplist integrity check refuses it, and so is a plain node of 0 bytes; the well-formed one loads; with the checksum checked
 * again the same payloads are refused for their CRC.
 */
class CorruptRestoreDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide("enable-debug-command", "yes");

    @Test
    void ziplistPrevlenAndTailAreCheckedAsRedisDoes() throws Exception {
        assertEquals(transcript(SERVERS.redis().port()), transcript(SERVERS.spinel().port()));
    }

    /**
     * corrupt-dump.tcl's "stream with bad lpFirst": a stream whose listpack's first entry has a wrong back length
     * (0xF7 where its size, 1, belongs). Redis's sanitizer (lpValidateNext) refuses it; Spinel accepted it, as it
     * skipped back lengths without reading them.
     */
    @Test
    void listpackBackLengthIsCheckedAsRedisDoes() throws Exception {
        assertEquals(badBacklen(SERVERS.redis().port()), badBacklen(SERVERS.spinel().port()));
    }

    private static List<String> badBacklen(int port) throws Exception {
        byte[] payload = HexFormat.of().parseHex("0f01100000017b0e52d2ec0000000000000000404242000000180002f701010201846974656d058576616c7565060001"
                + "0201000100010101000105010301010100010101825f31030501020101010101010102010501ff02810000017b0e52d2"
                + "ed0101076d7967726f7570810000017b0e52d2ed00010000017b0e52d2ed0000000000000000edd2520e7b0100000101"
                + "05416c696365edd2520e7b010000010000017b0e52d2ed00000000000000000900ac05c9975d4580b3");
        List<String> out = new ArrayList<>();
        try (RawClient c = new RawClient(port)) {
            out.add(c.callString("CONFIG", "SET", "sanitize-dump-payload", "yes"));
            out.add(c.callString("DEBUG", "SET-SKIP-CHECKSUM-VALIDATION", "1"));
            out.add(restore(c, "_stream", payload));
            out.add(c.callString("EXISTS", "_stream"));
            out.add(c.callString("DEBUG", "SET-SKIP-CHECKSUM-VALIDATION", "0"));
            out.add(c.callString("CONFIG", "SET", "sanitize-dump-payload", "no"));
            c.call("FLUSHALL");
        }
        return out;
    }

    /** A quicklist (RDB type 14) of one ziplist holding "a" and "b"; {@code prevlen} and {@code tail} as given. */
    private static byte[] quicklist(int prevlen, int tail) {
        byte[] zl = {17, 0, 0, 0, (byte) tail, 0, 0, 0, 2, 0, 0, 1, 'a', (byte) prevlen, 1, 'b', (byte) 0xFF};
        byte[] p = new byte[3 + zl.length + 10];
        p[0] = 14;
        p[1] = 1; // one node
        p[2] = (byte) zl.length;
        System.arraycopy(zl, 0, p, 3, zl.length);
        p[3 + zl.length] = 9; // RDB version 9, then a CRC that is not checked
        for (int i = 0; i < 8; i++) {
            p[3 + zl.length + 2 + i] = (byte) (0x11 * (i + 1));
        }
        return p;
    }

    private static List<String> transcript(int port) throws Exception {
        List<String> out = new ArrayList<>();
        try (RawClient c = new RawClient(port)) {
            out.add(c.callString("DEBUG", "SET-SKIP-CHECKSUM-VALIDATION", "1"));
            out.add(restore(c, "good", quicklist(3, 13)));
            out.add(c.callString("LRANGE", "good", "0", "-1"));
            out.add(restore(c, "bigprev", quicklist(14, 13)));
            out.add(restore(c, "smallprev", quicklist(2, 13)));
            out.add(restore(c, "tail", quicklist(3, 10)));
            // a QUICKLIST_2 (type 18) of one plain node of 0 bytes
            out.add(restore(c, "emptyplain", new byte[] {18, 1, 1, 0, 10, 0, 1, 2, 3, 4, 5, 6, 7, 8}));
            out.add(c.callString("EXISTS", "bigprev", "smallprev", "tail", "emptyplain"));
            out.add(c.callString("DEBUG", "SET-SKIP-CHECKSUM-VALIDATION", "0"));
            out.add(restore(c, "crc", quicklist(3, 13)));
            c.call("FLUSHALL");
        }
        return out;
    }

    private static String restore(RawClient c, String key, byte[] payload) throws Exception {
        return new String(c.call(List.of(b("RESTORE"), b(key), b("0"), payload)), StandardCharsets.ISO_8859_1);
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }
}
