package dev.spinel.server.diff;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Error replies that quote a client's argument, with arguments that are not UTF-8 and that hold a NUL:
 * Redis formats them with {@code %s}, so the reply carries the argument's bytes as they came, up to the
 * first NUL. Each command runs on Spinel and on redis-server; the replies must be identical bytes.
 */
class QuotedArgumentErrorsDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    /** Not UTF-8 (a lone 0xff, a truncated sequence), then a NUL and more bytes that %s does not print. */
    private static final byte[] BAD = {'x', (byte) 0xff, (byte) 0xc3, '(', (byte) 0xe2, (byte) 0x82, 0, 'z', (byte) 0xfe};

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Runs the setup then the command on both servers; the command's replies must match byte for byte. */
    private static void same(List<List<byte[]>> setup, byte[]... command) throws IOException {
        byte[] redis = run(SERVERS.redis().port(), setup, command);
        byte[] spinel = run(SERVERS.spinel().port(), setup, command);
        assertTrue(redis.length > 0 && redis[0] == '-', () -> "expected an error: " + show(redis));
        assertArrayEquals(redis, spinel, () -> "redis " + show(redis) + " spinel " + show(spinel));
    }

    private static void same(byte[]... command) throws IOException {
        same(List.of(), command);
    }

    private static byte[] run(int port, List<List<byte[]>> setup, byte[]... command) throws IOException {
        try (RawClient c = new RawClient(port)) {
            c.call("FLUSHALL");
            for (List<byte[]> step : setup) {
                c.call(step);
            }
            return c.call(List.of(command));
        }
    }

    private static String show(byte[] reply) {
        StringBuilder s = new StringBuilder();
        for (byte x : reply) {
            s.append(x >= 0x20 && x < 0x7f ? String.valueOf((char) x) : String.format("\\x%02x", x & 0xff));
        }
        return s.toString();
    }

    private static List<List<byte[]>> streamWithGroup() {
        List<List<byte[]>> setup = new ArrayList<>();
        setup.add(List.of(b("XADD"), b("s"), b("1-1"), b("f"), b("v")));
        setup.add(List.of(b("XGROUP"), b("CREATE"), b("s"), b("g"), b("0")));
        return setup;
    }

    private static byte[] concat(byte[] a, byte[] b) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        o.writeBytes(a);
        o.writeBytes(b);
        return o.toByteArray();
    }

    @Test
    void noGroupErrorsQuoteKeyAndGroupAsPercentS() throws IOException {
        same(streamWithGroup(), b("XGROUP"), b("CREATECONSUMER"), b("s"), BAD, b("c"));
        same(streamWithGroup(), b("XGROUP"), b("DELCONSUMER"), b("s"), BAD, b("c"));
        same(streamWithGroup(), b("XINFO"), b("CONSUMERS"), b("s"), BAD);
        same(streamWithGroup(), b("XREADGROUP"), b("GROUP"), BAD, b("c"), b("STREAMS"), b("s"), b(">"));
        same(b("XREADGROUP"), b("GROUP"), b("g"), b("c"), b("STREAMS"), concat(b("k"), BAD), b(">"));
        same(streamWithGroup(), b("XCLAIM"), b("s"), BAD, b("c"), b("0"), b("1-1"));
        same(b("XCLAIM"), concat(b("k"), BAD), b("g"), b("c"), b("0"), b("1-1"));
        same(streamWithGroup(), b("XAUTOCLAIM"), b("s"), BAD, b("c"), b("0"), b("0"));
        same(streamWithGroup(), b("XPENDING"), b("s"), BAD);
    }

    @Test
    void optionErrorsQuoteTheOptionAsPercentS() throws IOException {
        same(streamWithGroup(), b("XCLAIM"), b("s"), b("g"), b("c"), b("0"), b("1-1"), BAD);
        same(b("HELLO"), b("3"), BAD);
        same(b("FUNCTION"), b("LOAD"), BAD, b("code"));
        same(b("FUNCTION"), b("LIST"), BAD);
    }

    @Test
    void clientAndAclErrorsQuoteNamesAsPercentS() throws IOException {
        same(b("CLIENT"), b("KILL"), b("TYPE"), BAD);
        same(b("CLIENT"), b("KILL"), b("USER"), BAD);
        same(b("CLIENT"), b("LIST"), b("TYPE"), BAD);
        same(b("ACL"), b("DRYRUN"), BAD, b("get"), b("k"));
        same(b("ACL"), b("DRYRUN"), b("default"), BAD, b("k"));
    }

    @Test
    void otherQuotedNamesAsPercentS() throws IOException {
        same(b("LATENCY"), b("GRAPH"), BAD);
        same(List.of(List.of(b("PFADD"), b("h"), b("a"))), b("PFDEBUG"), BAD, b("h"));
        same(b("CONFIG"), b("SET"), BAD, b("1"));
        same(List.of(List.of(b("CLIENT"), b("TRACKING"), b("on"), b("BCAST"), b("PREFIX"), concat(b("ab"), BAD))),
                b("CLIENT"), b("TRACKING"), b("on"), b("BCAST"), b("PREFIX"), b("a"));
        same(b("CLIENT"), b("TRACKING"), b("on"), b("BCAST"), b("PREFIX"), BAD, b("PREFIX"), b("x"));
    }
}
