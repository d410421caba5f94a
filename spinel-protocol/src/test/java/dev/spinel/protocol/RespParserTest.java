package dev.spinel.protocol;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static dev.spinel.protocol.ParserHarness.bytes;
import static dev.spinel.protocol.ParserHarness.multibulk;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The request parser: every stream is parsed whole, split at every byte boundary, and byte by byte, and
 * must give the same requests. Error texts and quirks are those of redis-server 7.0.15 (checked against it).
 */
class RespParserTest {

    /** Parses {@code stream} whole, at every split point, and byte by byte; all must agree. Returns the whole parse. */
    private static ParserHarness parseEveryWay(byte[] stream) {
        ParserHarness whole = ParserHarness.whole(stream);
        for (int at = 0; at <= stream.length; at++) {
            ParserHarness split = ParserHarness.split(stream, at);
            assertEquals(whole.requests, split.requests, "split at " + at);
            assertEquals(whole.error, split.error, "split at " + at);
            assertEquals(whole.empty, split.empty, "split at " + at);
        }
        ParserHarness one = ParserHarness.byteByByte(stream);
        assertEquals(whole.requests, one.requests, "byte by byte");
        assertEquals(whole.error, one.error, "byte by byte");
        return whole;
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            b.writeBytes(p);
        }
        return b.toByteArray();
    }

    @Test
    void multibulkAtEveryBoundary() {
        ParserHarness h = parseEveryWay(multibulk("SET", "key", "va\r\nlue", ""));
        assertEquals(List.of(List.of("SET", "key", "va\r\nlue", "")), h.requests);
        assertNull(h.error);
    }

    @Test
    void pipelineOfSeveralCommandsAtEveryBoundary() {
        byte[] stream = concat(multibulk("PING"), bytes("ECHO hello\r\n"), multibulk("SET", "a", "1"),
                bytes("\r\n"), bytes("*0\r\n"), multibulk("GET", "a"), bytes("PING\n"), bytes("*-1\r\n"),
                multibulk("DEL", "a", "b", "c"));
        ParserHarness h = parseEveryWay(stream);
        assertEquals(List.of(List.of("PING"), List.of("ECHO", "hello"), List.of("SET", "a", "1"), List.of("GET", "a"),
                List.of("PING"), List.of("DEL", "a", "b", "c")), h.requests);
        assertEquals(3, h.empty);
        assertNull(h.error);
    }

    @Test
    void inlineWithQuotesAndEscapesAtEveryBoundary() {
        byte[] stream = bytes("SET \"a b\" 'c d'\r\nECHO \"x\\x41\\n\\t\\\"q\\\"\\zy\"\r\n  ECHO   'it\\'s'  \n"
                + "ECHO \"\"\r\nECHO ''\r\n");
        ParserHarness h = parseEveryWay(stream);
        assertEquals(List.of(List.of("SET", "a b", "c d"), List.of("ECHO", "xA\n\t\"q\"zy"), List.of("ECHO", "it's"),
                List.of("ECHO", ""), List.of("ECHO", "")), h.requests);
        assertNull(h.error);
    }

    @Test
    void bigBulkValueAtEveryBoundaryAndByteByByte() {
        StringBuilder v = new StringBuilder();
        for (int i = 0; i < 40_000; i++) {
            v.append((char) ('a' + i % 26));
        }
        byte[] stream = concat(multibulk("SET", "k", v.toString()), multibulk("GET", "k"));
        // every boundary of a 40 KB stream is 40k parses of 40 KB: check a stride of boundaries plus the edges
        ParserHarness whole = ParserHarness.whole(stream);
        for (int at = 0; at <= stream.length; at += (at < 64 || at > stream.length - 64) ? 1 : 97) {
            ParserHarness split = ParserHarness.split(stream, at);
            assertEquals(whole.requests, split.requests, "split at " + at);
        }
        assertEquals(whole.requests, ParserHarness.byteByByte(stream).requests);
        assertEquals(List.of(List.of("SET", "k", v.toString()), List.of("GET", "k")), whole.requests);
    }

    @Test
    void emptyRequestsAreZeroArguments() {
        ParserHarness h = parseEveryWay(bytes("*0\r\n*-1\r\n*-5\r\n\r\n\n   \r\n\t\r\n"));
        assertTrue(h.requests.isEmpty());
        assertEquals(7, h.empty);
        assertNull(h.error);
    }

    // ---- errors, with redis-server 7.0.15's texts ----

    private static void assertError(String expected, String stream) {
        ParserHarness h = parseEveryWay(bytes(stream));
        assertEquals(expected, h.error, stream);
    }

    @Test
    void invalidMultibulkLength() {
        for (String s : List.of("*abc\r\n", "*3000000000\r\n", "*+1\r\n", "*01\r\n", "*-0\r\n", "*\r\n", "* 1\r\n",
                "*1 \r\n", "*123456789012345678901\r\n", "*1\n$4\r\nPING\r\n")) {
            assertError("Protocol error: invalid multibulk length", s);
        }
    }

    @Test
    void invalidBulkLength() {
        for (String s : List.of("*1\r\n$-1\r\n", "*1\r\n$04\r\nPING\r\n", "*1\r\n$+4\r\nPING\r\n", "*1\r\n$\r\n",
                "*1\r\n$x\r\n", "*1\r\n$99999999999\r\n", "*2\r\n$4\r\nECHO\r\n$-0\r\n")) {
            assertError("Protocol error: invalid bulk length", s);
        }
    }

    @Test
    void bulkLongerThanProtoMaxBulkLen() {
        ParserHarness h = new ParserHarness().maxBulk(10).feed(bytes("*2\r\n$4\r\nECHO\r\n$10\r\n0123456789\r\n"));
        assertEquals(List.of(List.of("ECHO", "0123456789")), h.requests);
        h = new ParserHarness().maxBulk(10).feed(bytes("*2\r\n$4\r\nECHO\r\n$11\r\n"));
        assertEquals("Protocol error: invalid bulk length", h.error);
    }

    @Test
    void unauthenticatedLimits() {
        ParserHarness h = new ParserHarness();
        h.parser.unauthenticated(true);
        h.feed(bytes("*10\r\n"));
        assertNull(h.error, "10 arguments are allowed before AUTH");
        h = new ParserHarness();
        h.parser.unauthenticated(true);
        assertEquals("Protocol error: unauthenticated multibulk length", h.feed(bytes("*11\r\n")).error);
        h = new ParserHarness();
        h.parser.unauthenticated(true);
        assertNull(h.feed(bytes("*2\r\n$4\r\nAUTH\r\n$16384\r\n")).error);
        h = new ParserHarness();
        h.parser.unauthenticated(true);
        assertEquals("Protocol error: unauthenticated bulk length", h.feed(bytes("*2\r\n$4\r\nAUTH\r\n$16385\r\n")).error);
        // the invalid-length checks come first, as in Redis
        h = new ParserHarness();
        h.parser.unauthenticated(true);
        assertEquals("Protocol error: invalid multibulk length", h.feed(bytes("*3000000000\r\n")).error);
        // once authenticated, no such limits
        assertNull(new ParserHarness().feed(bytes("*11\r\n$16385\r\n")).error);
    }

    @Test
    void expectedDollar() {
        assertError("Protocol error: expected '$', got 'X'", "*1\r\nXYZ\r\n");
        assertError("Protocol error: expected '$', got ':'", "*2\r\n$4\r\nECHO\r\n:1\r\n");
        assertError("Protocol error: expected '$', got '\r'", "*1\r\n\r\n");
    }

    @Test
    void commandsBeforeAnErrorAreParsed() {
        ParserHarness h = parseEveryWay(concat(multibulk("PING"), bytes("ECHO a\r\n"), bytes("*1\r\n?\r\n")));
        assertEquals(List.of(List.of("PING"), List.of("ECHO", "a")), h.requests);
        assertEquals("Protocol error: expected '$', got '?'", h.error);
    }

    @Test
    void unbalancedQuotes() {
        for (String s : List.of("ECHO \"abc\r\n", "ECHO 'abc\r\n", "ECHO 'a'b\r\n", "ECHO \"a\"b\r\n", "\"\r\n",
                "ECHO \"a\\\"\r\n")) {
            assertError("Protocol error: unbalanced quotes in request", s);
        }
    }

    @Test
    void tooBigInlineRequest() {
        byte[] line = new byte[RespParser.INLINE_MAX + 1];
        Arrays.fill(line, (byte) 'a');
        ParserHarness h = ParserHarness.whole(line);
        assertEquals("Protocol error: too big inline request", h.error);
        // exactly the limit without a newline still waits
        assertNull(ParserHarness.whole(Arrays.copyOf(line, RespParser.INLINE_MAX)).error);
        // a line that came whole: Redis, reading 16 KiB at a time, finds a newline within 80 KiB, not one past it
        byte[] whole = Arrays.copyOf(bytes("SET k "), 70_002);
        Arrays.fill(whole, 6, 70_000, (byte) 'a');
        whole[70_000] = '\r';
        whole[70_001] = '\n';
        ParserHarness ok = ParserHarness.whole(whole);
        assertNull(ok.error);
        assertEquals(1, ok.requests.size());
        byte[] past = Arrays.copyOf(line, RespParser.INLINE_LINE_MAX + 1);
        Arrays.fill(past, (byte) 'a');
        past[past.length - 1] = '\n';
        assertEquals("Protocol error: too big inline request", ParserHarness.whole(past).error);
        past[past.length - 2] = '\n';
        assertNull(ParserHarness.whole(Arrays.copyOf(past, past.length - 1)).error, "a newline within 80 KiB");
    }

    @Test
    void tooBigCountStrings() {
        StringBuilder digits = new StringBuilder();
        while (digits.length() <= RespParser.INLINE_MAX) {
            digits.append("1111111111");
        }
        assertEquals("Protocol error: too big mbulk count string", ParserHarness.whole(bytes("*" + digits)).error);
        assertEquals("Protocol error: too big bulk count string", ParserHarness.whole(bytes("*1\r\n$" + digits)).error);
    }

    // ---- quirks of Redis's parser, reproduced ----

    @Test
    void byteAfterCarriageReturnIsSkippedUnchecked() {
        // Redis finds the first '\r' of a length line and skips the next byte whatever it is.
        ParserHarness h = parseEveryWay(bytes("*1\rX$4\rYPING\r\n"));
        assertEquals(List.of(List.of("PING")), h.requests);
        // and the two bytes after a bulk are skipped unchecked too
        h = parseEveryWay(bytes("*1\r\n$4\r\nPINGxx*1\r\n$4\r\nPING\r\n"));
        assertEquals(List.of(List.of("PING"), List.of("PING")), h.requests);
    }

    @Test
    void typeByteIsCheckedOnlyOnceTheLineIsComplete() {
        ParserHarness h = ParserHarness.whole(bytes("*1\r\nX"));
        assertNull(h.error, "Redis waits for the line end before it checks the '$'");
        assertTrue(h.parser.inProgress());
    }

    @Test
    void nulByteStopsTheLineSearchLikeStrchr() {
        ParserHarness h = ParserHarness.whole(bytes("PING\0x\r\n"));
        assertNull(h.error);
        assertTrue(h.requests.isEmpty(), "Redis's strchr stops at NUL: the inline line never completes");
        byte[] big = new byte[RespParser.INLINE_MAX + 10];
        Arrays.fill(big, (byte) 'a');
        big[3] = 0;
        big[big.length - 1] = '\n';
        assertEquals("Protocol error: too big inline request", ParserHarness.whole(big).error);
        // NUL inside a bulk value is ordinary data
        h = parseEveryWay(multibulk("ECHO", "a\0b"));
        assertEquals(List.of(List.of("ECHO", "a\0b")), h.requests);
    }

    @Test
    void inlineLineEndings() {
        ParserHarness h = parseEveryWay(bytes("PING\nPING\r\nECHO a\rb\r\n"));
        assertEquals(List.of(List.of("PING"), List.of("PING"), List.of("ECHO", "a", "b")), h.requests);
    }

    // ---- buffer management ----

    @Test
    void claimedLengthAllocatesNothing() {
        ParserHarness h = new ParserHarness().maxBulk(Long.MAX_VALUE).feed(bytes("*2\r\n$3\r\nSET\r\n$2147483647\r\nabc"));
        assertNull(h.error);
        assertTrue(h.parser.inProgress());
        assertTrue(h.largestArray <= 64 * 1024, "buffer grew to " + h.largestArray);
        h = new ParserHarness().maxBulk(Long.MAX_VALUE).feed(bytes("*2147483647\r\n$1\r\na\r\n"));
        assertNull(h.error);
        assertTrue(h.largestArray <= 64 * 1024, "buffer grew to " + h.largestArray);
        assertTrue(h.parser.bytesWanted() == 0 || h.parser.bytesWanted() < Integer.MAX_VALUE);
    }

    @Test
    void bulkLengthBeyondAnArrayIsStillRefusedOrWaited() {
        // 2^31 + 5 cannot be one Java array; with the limit raised it must not throw anything but wait
        ParserHarness h = new ParserHarness().maxBulk(Long.MAX_VALUE).feed(bytes("*1\r\n$2147483653\r\nab"));
        assertNull(h.error);
        assertTrue(h.largestArray <= 64 * 1024);
    }

    @Test
    void compactionAndGrowthWhileARequestIsInProgress() {
        ParserHarness h = new ParserHarness();
        // fill the front with complete commands, then a big request that arrives in pieces:
        // the buffer must shift (readPos > 0) and grow while the request is in progress
        StringBuilder pings = new StringBuilder();
        for (int i = 0; i < 500; i++) {
            pings.append("PING\r\n");
        }
        StringBuilder v = new StringBuilder();
        for (int i = 0; i < 300_000; i++) {
            v.append((char) ('0' + i % 10));
        }
        byte[] big = multibulk("SET", "key", v.toString(), "tail");
        byte[] stream = concat(bytes(pings.toString()), big, multibulk("GET", "key"));
        Random r = new Random(7);
        int pos = 0;
        while (pos < stream.length) {
            int n = Math.min(stream.length - pos, 1 + r.nextInt(20_000));
            h.feed(stream, pos, n);
            pos += n;
        }
        assertNull(h.error);
        assertEquals(502, h.requests.size());
        assertEquals(List.of("SET", "key", v.toString(), "tail"), h.requests.get(500));
        assertEquals(List.of("GET", "key"), h.requests.get(501));
        // once everything is consumed, a big idle array is given back
        assertTrue(h.buffer.array().length <= 256 * 1024, "idle buffer " + h.buffer.array().length);
        assertEquals(0, h.buffer.pending());
    }

    @Test
    void shiftKeepsPartiallyParsedArguments() {
        QueryBuffer q = new QueryBuffer();
        Args a = new Args();
        RespParser p = new RespParser(q, a);
        byte[] first = bytes("PING\r\n*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nab");
        q.append(first, 0, first.length);
        try {
            assertTrue(p.next());
            assertEquals(1, a.count());
            assertFalse(p.next());
            // force the live bytes to move to the front of a new, larger array
            q.ensureWritable(q.array().length);
            byte[] rest = bytes("cde\r\n");
            q.append(rest, 0, rest.length);
            assertTrue(p.next());
        } catch (ProtocolException e) {
            throw new AssertionError(e);
        }
        assertEquals(3, a.count());
        assertEquals("SET", a.string(0));
        assertEquals("k", a.string(1));
        assertEquals("abcde", a.string(2));
    }

    @Test
    void aLargeArgumentInProgressHoldsAboutItsSize() throws ProtocolException {
        // Redis sizes its query buffer to a large argument (CLIENT LIST tot-mem, maxmemory-clients); doubling past
        // its end held up to twice it, also when its last bytes (under 32 KB) arrived into a full array
        for (int size : new int[] {314_572, 3 * 1024 * 1024}) {
            QueryBuffer q = new QueryBuffer();
            Args a = new Args();
            RespParser p = new RespParser(q, a);
            byte[] header = bytes("*2\r\n$" + size + "\r\n");
            q.append(header, 0, header.length);
            assertFalse(p.next());
            byte[] chunk = new byte[16 * 1024];
            for (int sent = 0; sent < size; sent += chunk.length) {
                int n = Math.min(chunk.length, size - sent);
                q.ensureWritable(n);
                q.append(chunk, 0, n);
                assertFalse(p.next());
            }
            assertTrue(q.array().length <= header.length + size + 2, size + ": array " + q.array().length);
        }
        // an array full a few bytes before the argument's end (moved off a large first read): its last bytes
        // make it grow to the end, not double
        int size = 3 * 1024 * 1024;
        byte[] header = bytes("*2\r\n$" + size + "\r\n");
        int first = header.length + size - 1000;
        QueryBuffer q = new QueryBuffer(new byte[first]);
        RespParser p = new RespParser(q, new Args());
        byte[] start = new byte[first];
        System.arraycopy(header, 0, start, 0, header.length);
        q.append(start, 0, first);
        assertFalse(p.next());
        q.ensureWritable(1002);
        assertEquals(header.length + size + 2, q.array().length);
    }

    @Test
    void unparsedBytesCountsOnlyTheArgumentInProgress() throws ProtocolException {
        QueryBuffer q = new QueryBuffer();
        Args a = new Args();
        RespParser p = new RespParser(q, a);
        byte[] b = bytes("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$10\r\n01234");
        q.append(b, 0, b.length);
        assertFalse(p.next());
        assertEquals(5, p.unparsedBytes());
        assertEquals(7, p.bytesWanted());
    }

    @Test
    void requestInProgressSurvivesAMoveOffASharedArray() throws ProtocolException {
        // A connection reads into its loop's shared array; a read that ends inside a request moves the rest
        // to the connection's own array, and the parse goes on there where it stopped.
        byte[] shared = new byte[256];
        QueryBuffer q = new QueryBuffer(shared);
        Args args = new Args();
        RespParser p = new RespParser(q, args);
        byte[] stream = concat(multibulk("PING"), multibulk("SET", "key", "a longer value"));
        int cut = stream.length - 6; // inside the value
        q.append(stream, 0, cut);
        assertTrue(p.next());
        assertEquals("PING", args.string(0));
        assertFalse(p.next());
        assertTrue(p.inProgress());
        q.moveTo(q.privateCopyTarget());
        Arrays.fill(shared, (byte) '!'); // the loop reuses its array for another connection
        q.append(stream, cut, stream.length - cut);
        assertTrue(p.next());
        assertEquals(List.of("SET", "key", "a longer value"),
                List.of(args.string(0), args.string(1), args.string(2)));
        assertFalse(p.next());
        assertEquals(0, q.pending());
    }
}
