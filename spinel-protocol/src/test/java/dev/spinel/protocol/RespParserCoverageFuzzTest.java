package dev.spinel.protocol;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Coverage-guided fuzzing of the request parser with Jazzer. A plain build ({@code mvn test}) runs the seed
 * inputs under {@code src/test/resources/dev/spinel/protocol/RespParserCoverageFuzzTestInputs/} and any crash
 * files saved there; with {@code JAZZER_FUZZ=1} in the environment it fuzzes, coverage-guided, for
 * {@code maxDuration} (see docs/fuzzing.md); a finding is saved as a crash file to be moved into that directory,
 * where it becomes a regression input of every later build.
 *
 * <p>The properties, for any bytes and any way of cutting them into reads: only {@link ProtocolException}
 * escapes, and only with a {@code "Protocol error: "} text; the requests parsed and the error are the same
 * as when the bytes arrive at once, and byte by byte; the buffer never grows beyond what was received (a
 * claimed length allocates nothing); and a {@code proto-max-bulk-len} that is the default or unlimited does
 * not change that.
 */
class RespParserCoverageFuzzTest {
    @FuzzTest(maxDuration = "5m")
    void anyBytesCutAnywhereParseTheSame(FuzzedDataProvider data) {
        long maxBulk = data.consumeBoolean() ? 512L * 1024 * 1024 : Long.MAX_VALUE;
        boolean unauthenticated = data.consumeBoolean();
        int[] cuts = data.consumeInts(data.consumeInt(0, 8));
        byte[] stream = data.consumeRemainingAsBytes();

        ParserHarness whole = harness(maxBulk, unauthenticated).feed(stream);
        ParserHarness chunked = harness(maxBulk, unauthenticated);
        int pos = 0;
        for (int cut : cuts) {
            int n = stream.length == 0 ? 0 : Math.floorMod(cut, stream.length - pos + 1);
            chunked.feed(stream, pos, n);
            pos += n;
        }
        chunked.feed(stream, pos, stream.length - pos);
        assertEquals(whole.requests, chunked.requests);
        assertEquals(whole.empty, chunked.empty);
        assertEquals(whole.error, chunked.error);
        if (stream.length <= 2048) {
            ParserHarness bytes = harness(maxBulk, unauthenticated);
            for (int i = 0; i < stream.length; i++) {
                bytes.feed(stream, i, 1);
            }
            assertEquals(whole.requests, bytes.requests);
            assertEquals(whole.error, bytes.error);
        }
        if (whole.error != null) {
            assertTrue(whole.error.startsWith("Protocol error: "), whole.error);
        }
        long bound = Math.max(16 * 1024, 2L * stream.length + 64);
        assertTrue(whole.largestArray <= bound && chunked.largestArray <= bound,
                "buffer grew to " + Math.max(whole.largestArray, chunked.largestArray) + " for " + stream.length + " bytes");
    }

    private static ParserHarness harness(long maxBulk, boolean unauthenticated) {
        ParserHarness h = new ParserHarness().maxBulk(maxBulk);
        h.parser.unauthenticated(unauthenticated);
        return h;
    }
}
