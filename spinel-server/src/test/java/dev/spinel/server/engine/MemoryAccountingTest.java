package dev.spinel.server.engine;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * used_memory is more than the dataset, as Redis's: a start-up baseline, the cached scripts' bodies and the
 * clients' buffers count too (INFO memory, MEMORY STATS and the maxmemory checks read the same figure).
 */
class MemoryAccountingTest {
    @Test
    void usedMemoryCountsTheBaselineScriptsAndClientBuffers() throws Exception {
        try (SpinelServer server = SpinelServer.startEphemeral(); RawClient c = new RawClient(server.port());
             RawClient filler = new RawClient(server.port())) {
            String info = text(c.call("INFO", "memory"));
            long startup = field(info, "used_memory_startup");
            assertTrue(startup > 500_000 && startup < 2_000_000, info);
            assertEquals(field(info, "used_memory"), field(info, "used_memory_overhead") + field(info, "used_memory_dataset"), info);
            long overhead = field(info, "used_memory_overhead");
            assertTrue(overhead >= startup, info);

            c.call("SCRIPT", "LOAD", "return '" + "x".repeat(50_000) + "'");
            long withScript = field(text(c.call("INFO", "memory")), "used_memory_overhead");
            assertTrue(withScript >= overhead + 50_000, "a cached script's body counts: " + withScript + " vs " + overhead);

            // A client that sent 300 KB of a request it has not finished: its query buffer holds them.
            StringBuilder partial = new StringBuilder("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$400000\r\n");
            partial.append("y".repeat(300_000));
            filler.sendRaw(partial.toString().getBytes(StandardCharsets.US_ASCII));
            long deadline = System.currentTimeMillis() + 5000;
            long clients = 0;
            while (System.currentTimeMillis() < deadline && clients < 300_000) {
                Thread.sleep(50); // sampled by the cron, as Redis's clientsCron
                clients = field(text(c.call("INFO", "memory")), "mem_clients_normal");
            }
            assertTrue(clients >= 300_000, "mem_clients_normal: " + clients);
            String stats = text(c.call("MEMORY", "STATS"));
            assertTrue(stats.contains("clients.normal\r\n:"), stats);
            assertEquals(server.engine().memory().used(), server.engine().evictor().usedMemory());
        }
    }

    private static long field(String info, String name) {
        Matcher m = Pattern.compile("\r\n" + name + ":(\\d+)\r\n").matcher(info);
        assertTrue(m.find(), name + " missing: " + info);
        return Long.parseLong(m.group(1));
    }

    private static String text(byte[] reply) {
        return new String(reply, StandardCharsets.ISO_8859_1);
    }
}
