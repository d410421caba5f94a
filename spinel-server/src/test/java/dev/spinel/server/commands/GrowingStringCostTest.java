package dev.spinel.server.commands;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Writes to a large string cost O(change), not O(length) (issue #15): 25,000 APPENDs of 1 KB (a 25 MB string) and
 * 100,000 SETBITs into a 2 MB bitmap each answer long before the bound. Copying the whole string per write, as
 * Spinel did, moves ~300 GB and ~200 GB: minutes. The bound only catches that blow-up; it measures no speed.
 */
class GrowingStringCostTest {
    private static final long BOUND_NANOS = 20_000_000_000L;

    /** Sends {@code commands} pipelined in batches and returns the last reply. */
    private static String pipeline(RawClient c, List<List<byte[]>> commands) throws Exception {
        String last = null;
        for (int from = 0; from < commands.size(); from += 500) {
            int to = Math.min(commands.size(), from + 500);
            ByteArrayOutputStream batch = new ByteArrayOutputStream();
            for (int i = from; i < to; i++) {
                batch.writeBytes(RawClient.encode(commands.get(i)));
            }
            c.sendRaw(batch.toByteArray());
            for (int i = from; i < to; i++) {
                last = new String(c.readReply(), StandardCharsets.US_ASCII);
            }
        }
        return last;
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    @Test
    @Timeout(120)
    void appendsAndSetbitsOnLargeStringsAreNotLinearInTheirLength() throws Exception {
        try (SpinelServer s = SpinelServer.start(ServerConfig.defaults().with("port", "0"));
             RawClient c = new RawClient(s.port())) {
            byte[] kb = new byte[1024];
            Arrays.fill(kb, (byte) 'a');
            List<List<byte[]>> appends = new ArrayList<>();
            for (int i = 0; i < 25_000; i++) {
                appends.add(List.of(b("APPEND"), b("big"), kb));
            }
            long t0 = System.nanoTime();
            assertEquals(":" + 25_000 * 1024 + "\r\n", pipeline(c, appends));
            long appendNanos = System.nanoTime() - t0;
            assertTrue(appendNanos < BOUND_NANOS, "25,000 APPENDs took " + appendNanos / 1_000_000 + " ms");

            assertEquals(":0\r\n", c.callString("SETBIT", "bitmap", Integer.toString(16 * 1024 * 1024), "1"));
            Random rnd = new Random(7);
            List<List<byte[]>> setbits = new ArrayList<>();
            for (int i = 0; i < 100_000; i++) {
                setbits.add(List.of(b("SETBIT"), b("bitmap"), b(Integer.toString(rnd.nextInt(16 * 1024 * 1024))), b("1")));
            }
            t0 = System.nanoTime();
            pipeline(c, setbits);
            long setbitNanos = System.nanoTime() - t0;
            assertTrue(setbitNanos < BOUND_NANOS, "100,000 SETBITs took " + setbitNanos / 1_000_000 + " ms");
            assertEquals(":" + (2 * 1024 * 1024 + 1) + "\r\n", c.callString("STRLEN", "bitmap"));
            long set = Long.parseLong(c.callString("BITCOUNT", "bitmap").substring(1).strip());
            assertTrue(set > 90_000 && set <= 100_001, "bits set: " + set);
        }
    }

    /**
     * BITCOUNT and BITPOS of a few bytes of a grown 8 MB bitmap read it in place: 40,000 of them answer long before the
     * bound. Reading through a copy of the whole string, as they did, moves ~330 GB: minutes.
     */
    @Test
    @Timeout(120)
    void bitcountAndBitposOfAGrownStringReadItInPlace() throws Exception {
        try (SpinelServer s = SpinelServer.start(ServerConfig.defaults().with("port", "0"));
             RawClient c = new RawClient(s.port())) {
            assertEquals(":0\r\n", c.callString("SETBIT", "bitmap", "100", "1"));
            assertEquals(":0\r\n", c.callString("SETBIT", "bitmap", Integer.toString(64 * 1024 * 1024), "1")); // grows it
            List<List<byte[]>> reads = new ArrayList<>();
            for (int i = 0; i < 20_000; i++) {
                reads.add(List.of(b("BITCOUNT"), b("bitmap"), b("12"), b("12")));
                reads.add(List.of(b("BITPOS"), b("bitmap"), b("1"), b("0"), b("20")));
            }
            long t0 = System.nanoTime();
            assertEquals(":100\r\n", pipeline(c, reads));
            long nanos = System.nanoTime() - t0;
            assertTrue(nanos < BOUND_NANOS, "40,000 BITCOUNT/BITPOS took " + nanos / 1_000_000 + " ms");
            assertEquals(":1\r\n", c.callString("BITCOUNT", "bitmap", "12", "12"));
            assertEquals(":2\r\n", c.callString("BITCOUNT", "bitmap"));
            assertEquals(":" + (64 * 1024 * 1024) + "\r\n", c.callString("BITPOS", "bitmap", "1", "13"));
            assertEquals(":-1\r\n", c.callString("BITPOS", "bitmap", "1", "-1", "-1", "BIT"));
            assertEquals(":" + (8 * 1024 * 1024 + 1) + "\r\n", c.callString("STRLEN", "bitmap"));
        }
    }
}
