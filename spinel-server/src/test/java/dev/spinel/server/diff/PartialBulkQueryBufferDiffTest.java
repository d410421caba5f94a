package dev.spinel.server.diff;

import dev.spinel.server.testing.Await;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * CLIENT LIST's qbuf of a client in the middle of sending a large argument: Redis shows the argument's bytes
 * received, the request's header already parsed out of its query buffer (unit/client-eviction waits for exactly
 * that figure before it goes on); Spinel showed the header's bytes too. And the memory such a client holds
 * (tot-mem, what maxmemory-clients evicts by): Redis sizes its query buffer to a large argument, Spinel's doubled
 * past the argument's end (a 300 KB argument held 576 KB, so unit/client-eviction's ten such clients under a
 * 4 MB limit had one evicted before the limit was lowered).
 */
class PartialBulkQueryBufferDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    private static final int SENT = 60_000;

    @Test
    void qbufCountsTheArgumentBytesReceived() throws Exception {
        assertEquals(qbuf(SERVERS.redis().port()), qbuf(SERVERS.spinel().port()));
    }

    @Test
    void aClientHoldingALargeArgumentHoldsAboutItsSize() throws Exception {
        int size = 314_572; // unit/client-eviction's "decrease maxmemory-clients": (4 MB - 1 MB) / 10
        long redis = totMem(SERVERS.redis().port(), size);
        long spinel = totMem(SERVERS.spinel().port(), size);
        assertTrue(spinel >= size && spinel <= redis + redis / 10, "Spinel's tot-mem " + spinel + ", Redis's " + redis);
    }

    private static long totMem(int port, int size) throws Exception {
        try (RawClient r = new RawClient(port); RawClient sender = new RawClient(port)) {
            sender.call("CLIENT", "SETNAME", "sender");
            // the whole argument but its CRLF (the request stays in progress), in pieces each read on its own, as
            // a client's writes arrive while the server reads
            sender.sendRaw(("*2\r\n$" + size + "\r\n").getBytes(StandardCharsets.US_ASCII));
            int piece = 16 * 1024;
            for (int sent = 0; sent < size; ) {
                int n = Math.min(piece, size - sent);
                sender.sendRaw("v".repeat(n).getBytes(StandardCharsets.US_ASCII));
                sent += n;
                int expected = sent;
                Await.waitFor(() -> Long.parseLong(field(text(r.call("CLIENT", "LIST")), "qbuf")) >= expected, "the sender's bytes read");
            }
            return Long.parseLong(field(text(r.call("CLIENT", "LIST")), "tot-mem"));
        }
    }

    private static String qbuf(int port) throws Exception {
        try (RawClient r = new RawClient(port); RawClient sender = new RawClient(port)) {
            sender.call("CLIENT", "SETNAME", "sender");
            sender.sendRaw(("*2\r\n$3\r\nSET\r\n$100000\r\n" + "v".repeat(SENT)).getBytes(StandardCharsets.US_ASCII));
            String[] seen = new String[1];
            Await.waitFor(() -> {
                seen[0] = field(text(r.call("CLIENT", "LIST")), "qbuf");
                return Long.parseLong(seen[0]) >= SENT;
            }, "the sender's bytes read");
            return "qbuf=" + seen[0];
        }
    }

    private static String field(String list, String name) {
        for (String line : list.split("\n")) {
            if (line.contains(" name=sender ")) {
                for (String f : line.trim().split(" ")) {
                    if (f.startsWith(name + "=")) {
                        return f.substring(name.length() + 1);
                    }
                }
            }
        }
        throw new AssertionError("no sender in " + list);
    }

    private static String text(byte[] reply) {
        return new String(reply, StandardCharsets.ISO_8859_1);
    }
}
