package dev.spinel.server.diff;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A request of a few hundred bytes that follows many small ones is read with one read, as Redis reads it
 * (total_reads_processed): the receive buffer does not shrink below what a usual SET needs.
 */
class ReadsPerRequestDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    @Test
    void aSetAfterManyGetsIsOneRead() throws Exception {
        assertEquals(reads(SERVERS.redis().port()), reads(SERVERS.spinel().port()));
    }

    private static long reads(int port) throws Exception {
        try (RawClient c = new RawClient(port)) {
            for (int i = 0; i < 50; i++) {
                c.call("GET", "reads:k");
            }
            c.call("CONFIG", "RESETSTAT");
            c.call("SET", "reads:k", "v".repeat(1500));
            String info = c.callString("INFO", "stats");
            Matcher m = Pattern.compile("total_reads_processed:(\\d+)").matcher(info);
            assertTrue(m.find(), info);
            return Long.parseLong(m.group(1));
        }
    }
}
