package dev.spinel.protocol;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A small seeded fuzz of the request parser: streams of valid frames, mutated frames and random bytes,
 * fed in random chunks. The parser may only ever throw {@link ProtocolException}; the outcome (requests and
 * error) must not depend on how the stream is chunked; and the buffer grows only with the bytes received,
 * never from a length the stream claims.
 */
class RespParserFuzzTest {
    private static final String[] WORDS = {"SET", "GET", "PING", "ECHO", "DEL", "k", "", "a b", "\"q\"", "'", "\\x41",
            "$", "*", "\r", "\n", "\r\n", "\0", "-1", "2147483647", "99999999999999999999"};

    @Test
    void randomStreamsNeverThrowAnythingElseAndChunkingDoesNotMatter() {
        Random r = new Random(20261123L);
        for (int iteration = 0; iteration < 3000; iteration++) {
            byte[] stream = randomStream(r);
            long maxBulk = r.nextBoolean() ? 512L * 1024 * 1024 : Long.MAX_VALUE;
            ParserHarness whole = parse(stream, stream.length, maxBulk, r);
            ParserHarness chunked = parse(stream, 1 + r.nextInt(16), maxBulk, r);
            assertEquals(whole.requests, chunked.requests, "iteration " + iteration);
            assertEquals(whole.error, chunked.error, "iteration " + iteration);
            long bound = Math.max(16 * 1024, 2L * stream.length + 64);
            assertTrue(whole.largestArray <= bound && chunked.largestArray <= bound,
                    "iteration " + iteration + ": buffer grew to " + Math.max(whole.largestArray, chunked.largestArray)
                            + " for " + stream.length + " bytes");
            if (whole.error != null) {
                assertTrue(whole.error.startsWith("Protocol error: "), whole.error);
            }
        }
    }

    /** Not only random chunkings: the stream cut at each of its boundaries, in two reads, parses as it does whole. */
    @Test
    void everySplitPointGivesTheSameRequestsAndError() {
        Random r = new Random(20261127L);
        for (int iteration = 0; iteration < 400; iteration++) {
            byte[] stream = randomStream(r);
            ParserHarness whole = ParserHarness.whole(stream);
            for (int at = 0; at <= stream.length; at++) {
                ParserHarness split = ParserHarness.split(stream, at);
                assertEquals(whole.requests, split.requests, "iteration " + iteration + ", split at " + at);
                assertEquals(whole.empty, split.empty, "iteration " + iteration + ", split at " + at);
                assertEquals(whole.error, split.error, "iteration " + iteration + ", split at " + at);
            }
        }
    }

    /** Feeds in chunks of up to {@code maxChunk} bytes (random sizes); only ProtocolException is caught, inside. */
    private static ParserHarness parse(byte[] stream, int maxChunk, long maxBulk, Random r) {
        ParserHarness h = new ParserHarness().maxBulk(maxBulk);
        int pos = 0;
        while (pos < stream.length) {
            int n = Math.min(stream.length - pos, 1 + r.nextInt(maxChunk));
            h.feed(stream, pos, n);
            pos += n;
        }
        return h;
    }

    private static byte[] randomStream(Random r) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int frames = 1 + r.nextInt(6);
        for (int f = 0; f < frames; f++) {
            byte[] frame = switch (r.nextInt(5)) {
                case 0, 1 -> validMultibulk(r);
                case 2 -> inline(r);
                case 3 -> mutate(validMultibulk(r), r);
                default -> randomBytes(r);
            };
            b.writeBytes(frame);
        }
        return b.toByteArray();
    }

    private static byte[] validMultibulk(Random r) {
        int n = r.nextInt(5);
        String[] parts = new String[n];
        for (int i = 0; i < n; i++) {
            parts[i] = WORDS[r.nextInt(WORDS.length)];
        }
        return ParserHarness.multibulk(parts);
    }

    private static byte[] inline(Random r) {
        StringBuilder s = new StringBuilder();
        int n = r.nextInt(5);
        for (int i = 0; i < n; i++) {
            s.append(WORDS[r.nextInt(WORDS.length)]).append(r.nextBoolean() ? " " : "\t");
        }
        s.append(r.nextBoolean() ? "\r\n" : "\n");
        return ParserHarness.bytes(s.toString());
    }

    private static byte[] mutate(byte[] frame, Random r) {
        int edits = 1 + r.nextInt(3);
        for (int i = 0; i < edits && frame.length > 0; i++) {
            int at = r.nextInt(frame.length);
            frame[at] = switch (r.nextInt(4)) {
                case 0 -> (byte) r.nextInt(256);
                case 1 -> (byte) '9';
                case 2 -> (byte) '-';
                default -> (byte) '\r';
            };
        }
        if (r.nextInt(4) == 0) {
            // claim a huge bulk and send only a little of it
            byte[] huge = ParserHarness.bytes("*2\r\n$3\r\nSET\r\n$" + (r.nextBoolean() ? "2147483647" : "536870912") + "\r\nxy");
            return huge;
        }
        return frame;
    }

    private static byte[] randomBytes(Random r) {
        byte[] b = new byte[r.nextInt(40)];
        r.nextBytes(b);
        return b;
    }
}
