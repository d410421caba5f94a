package dev.spinel.server.diff;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The glob matcher against Redis 7.0's {@code stringmatchlen}, through the commands that use it: seeded random
 * keys and patterns over the bytes that mean something to a pattern ({@code * ? [ ] ^ - \}) plus a few
 * letters, so malformed patterns (unclosed sets, trailing backslashes, backwards ranges, {@code [^} at the end)
 * come up all the time; KEYS on both servers must list the same keys. A second round uses bytes above 0x7f in
 * keys and ranges (Redis compares them as signed chars), a third the case-insensitive matching of COMMAND LIST
 * FILTERBY PATTERN. A failure names the seed and the pattern.
 */
class GlobDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    private static final byte[] SPECIAL = "ab*?[]^-\\".getBytes(StandardCharsets.US_ASCII);

    @Test
    void keysListsTheSameKeysForRandomPatterns() throws IOException {
        long seed = Long.getLong("random.seed", 20261127L);
        Random rnd = new Random(seed);
        byte[] keyBytes = "abAB*?[]^-\\".getBytes(StandardCharsets.US_ASCII);
        try (RawClient a = new RawClient(SERVERS.spinel().port()); RawClient b = new RawClient(SERVERS.redis().port())) {
            both(a, b, "SELECT", "1");
            Set<String> keys = new HashSet<>();
            keys.add("");
            while (keys.size() < 400) {
                keys.add(new String(random(rnd, keyBytes, 1 + rnd.nextInt(9)), StandardCharsets.ISO_8859_1));
            }
            for (String k : keys) {
                both(a, b, List.of(bytes("SET"), k.getBytes(StandardCharsets.ISO_8859_1), bytes("1")));
            }
            for (int i = 0; i < 4000; i++) {
                byte[] pattern = random(rnd, SPECIAL, rnd.nextInt(12));
                compareKeys(a, b, pattern, seed);
            }
        }
    }

    @Test
    void bytesAboveAsciiCompareAsSignedCharsInRanges() throws IOException {
        long seed = Long.getLong("random.seed", 20261127L);
        Random rnd = new Random(seed + 1);
        byte[] keyBytes = {'a', 'z', 'A', '~', 0x7f, (byte) 0x80, (byte) 0xc3, (byte) 0xe9, (byte) 0xff, 0x01};
        byte[] patternBytes = {'a', 'z', '-', '[', ']', '^', '*', '?', (byte) 0x80, (byte) 0xe9, (byte) 0xff, 0x7f, 0x01};
        try (RawClient a = new RawClient(SERVERS.spinel().port()); RawClient b = new RawClient(SERVERS.redis().port())) {
            both(a, b, "SELECT", "2");
            for (int i = 0; i < 200; i++) {
                both(a, b, List.of(bytes("SET"), random(rnd, keyBytes, 1 + rnd.nextInt(4)), bytes("1")));
            }
            for (int i = 0; i < 2000; i++) {
                compareKeys(a, b, random(rnd, patternBytes, rnd.nextInt(8)), seed);
            }
        }
    }

    @Test
    void commandListFilterMatchesWithoutCase() throws IOException {
        long seed = Long.getLong("random.seed", 20261127L);
        Random rnd = new Random(seed + 2);
        byte[] patternBytes = "geEsStTlL*?[]^-\\".getBytes(StandardCharsets.US_ASCII);
        try (RawClient a = new RawClient(SERVERS.spinel().port()); RawClient b = new RawClient(SERVERS.redis().port())) {
            Set<String> common = new HashSet<>(Replies.sortedElements(a.call("COMMAND", "LIST")));
            common.retainAll(Replies.sortedElements(b.call("COMMAND", "LIST")));
            for (int i = 0; i < 1500; i++) {
                byte[] pattern = random(rnd, patternBytes, 1 + rnd.nextInt(6));
                List<byte[]> cmd = List.of(bytes("COMMAND"), bytes("LIST"), bytes("FILTERBY"), bytes("PATTERN"), pattern);
                List<String> fromSpinel = Replies.sortedElements(a.call(cmd));
                List<String> fromRedis = Replies.sortedElements(b.call(cmd));
                fromSpinel.retainAll(common);
                fromRedis.retainAll(common);
                assertEquals(fromRedis, fromSpinel, "seed " + seed + " pattern " + Replies.escape(pattern));
            }
        }
    }

    private static void compareKeys(RawClient a, RawClient b, byte[] pattern, long seed) throws IOException {
        List<byte[]> cmd = List.of(bytes("KEYS"), pattern);
        assertEquals(Replies.sortedElements(b.call(cmd)), Replies.sortedElements(a.call(cmd)),
                "seed " + seed + " KEYS " + Replies.escape(pattern));
    }

    private static void both(RawClient a, RawClient b, String... cmd) throws IOException {
        assertEquals(Replies.escape(b.call(cmd)), Replies.escape(a.call(cmd)));
    }

    private static void both(RawClient a, RawClient b, List<byte[]> cmd) throws IOException {
        assertEquals(Replies.escape(b.call(cmd)), Replies.escape(a.call(cmd)));
    }

    private static byte[] random(Random rnd, byte[] alphabet, int length) {
        byte[] out = new byte[length];
        for (int i = 0; i < length; i++) {
            out[i] = alphabet[rnd.nextInt(alphabet.length)];
        }
        return out;
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
