package dev.spinel.server.diff;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The minimal sequences {@link CommandSequenceFuzzTest} found, kept as fixed differential cases so that the
 * fix stays checked whatever seed the fuzzer draws. Each script runs on Spinel and on redis-server; every
 * reply must be identical.
 */
class FuzzFindingsDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    /** Runs the steps ({client index, args...}) on two clients of each server; the transcripts must match. */
    private static void same(String[]... steps) throws IOException {
        assertEquals(transcript(SERVERS.redis().port(), steps), transcript(SERVERS.spinel().port(), steps));
    }

    private static String transcript(int port, String[]... steps) throws IOException {
        List<String> out = new ArrayList<>();
        try (RawClient a = new RawClient(port); RawClient b = new RawClient(port)) {
            a.call("FLUSHALL");
            for (String[] step : steps) {
                RawClient c = step[0].equals("b") ? b : a;
                String[] args = Arrays.copyOfRange(step, 1, step.length);
                out.add(String.join(" ", args) + " -> " + c.callString(args));
            }
        }
        return String.join("\n", out);
    }

    private static String[] a(String... args) {
        String[] s = new String[args.length + 1];
        s[0] = "a";
        System.arraycopy(args, 0, s, 1, args.length);
        return s;
    }

    private static String[] b(String... args) {
        String[] s = new String[args.length + 1];
        s[0] = "b";
        System.arraycopy(args, 0, s, 1, args.length);
        return s;
    }

    @Test
    void execWithWrongArityIsAnExecAbortEvenOutsideMulti() throws IOException {
        same(a("EXEC", ""));
        same(a("MULTI"), a("SET", "k", "v"), a("EXEC", "x"), a("EXEC"), a("GET", "k"));
    }

    @Test
    void execWithWrongArityDropsTheWatches() throws IOException {
        // after the refused EXEC nothing is watched any more, so the other client's write does not abort
        same(a("WATCH", "k"), a("EXEC", "x"), b("SET", "k", "other"), a("MULTI"), a("SET", "k", "mine"), a("EXEC"),
                a("GET", "k"));
    }

    @Test
    void deletingAbsentKeysLeavesTheirWatchesValid() throws IOException {
        // UNLINK/DEL signal only the keys they deleted
        same(a("WATCH", "{k}0", "k1"), a("APPEND", "k0", "7"), a("UNLINK", "k1", "k0"), a("MULTI"), a("EXEC"));
        same(a("WATCH", "absent"), b("DEL", "absent", "absent2"), a("MULTI"), a("PING"), a("EXEC"));
        same(a("SET", "w", "1"), a("WATCH", "w"), b("DEL", "nothing", "w"), a("MULTI"), a("PING"), a("EXEC"));
    }

    @Test
    void scoreRangesAndSortValuesEndAtANulAsStrtodDoes() throws IOException {
        same(a("ZCOUNT", "k5", "0", "\u0000S"), a("ZADD", "z", "1", "a", "2", "b"), a("ZCOUNT", "z", "\u0000x", "(2\u00001"),
                a("ZRANGEBYSCORE", "z", "-inf", "1\u0000junk"), a("ZCOUNT", "z", "x\u0000", "2"));
        same(a("RPUSH", "l", "3\u0000x", "1", "2\u0000"), a("SORT", "l"), a("RPUSH", "bad", "x\u00001"), a("SORT", "bad"));
    }

    @Test
    void errorsQuoteTheClientsBytesAsTheyWereUpToANul() throws IOException {
        byte[][][] commands = {
                {b("EXPIRE"), b("k"), b("10"), {(byte) 0xdd, (byte) 0xff}},
                {b("PEXPIRE"), b("k"), b("0"), {'7', '1', 0x1f, (byte) 0x80, ';', (byte) 0xbe, 'L', (byte) 0xb2}},
                {b("EXPIREAT"), b("k"), b("1"), {'o', 'k', (byte) 0xc3, (byte) 0xa9, 0, 'c', 'u', 't'}},
                {b("OBJECT"), {(byte) 0xc4, 0x0b, (byte) 0x9a, (byte) 0xc6, (byte) 0x94, 0}, b("k")},
                {b("CLIENT"), {(byte) 0xf0, (byte) 0x9f, (byte) 0x98, (byte) 0x80, (byte) 0xff}},
                {b("XINFO"), {(byte) 0xe9, '\r', '\n', 'x'}},
                {b("CLIENT"), b("PAUSE"), b("1"), b("ALL"), {(byte) 0xe9}},
                {b("PEXPIRE"), b("k"), b("abc"), b("XX"), {(byte) 0xf9, 'z', (byte) 0x81, 0x11, 'u', '\n'}},
                {b("EXPIRE"), b("k"), b("1"), {'a', '\r', '\n', 'b', '\r', '\n', '\r'}},
                {b("OBJECT"), {'x', '\n', 'y', '\r', '\n'}},
        };
        try (RawClient r = new RawClient(SERVERS.redis().port()); RawClient s = new RawClient(SERVERS.spinel().port())) {
            for (byte[][] c : commands) {
                List<byte[]> args = Arrays.asList(c);
                assertEquals(Replies.escape(r.call(args)), Replies.escape(s.call(args)), Replies.escape(c[1]));
            }
        }
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
