package dev.spinel.server.diff;

import dev.spinel.server.testing.Await;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * unit/client-eviction "avoid client eviction when client is freed by output buffer limit": clients whose replies
 * pass {@code client-output-buffer-limit} are closed for it, and their replies no longer count for
 * {@code maxmemory-clients}, so a third client, large but under the limit with the others gone, is not evicted.
 * Spinel went on counting the closing clients' reply arrays until their sockets had closed and evicted the large
 * client for them.
 */
class ClientEvictionOutputLimitDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    private static final int MB = 1024 * 1024;

    @Test
    @Timeout(60)
    void clientsClosedByTheOutputLimitDoNotEvictOthers() throws Exception {
        List<String> redis = run(SERVERS.redis().port());
        assertEquals(List.of("qbuf-client listed", "evicted_clients:0"), redis);
        assertEquals(redis, run(SERVERS.spinel().port()));
    }

    private static List<String> run(int port) throws Exception {
        List<String> out = new ArrayList<>();
        try (RawClient r = new RawClient(port); RawClient q = new RawClient(port);
             RawClient o1 = new RawClient(port); RawClient o2 = new RawClient(port)) {
            r.call("CONFIG", "RESETSTAT");
            r.call("CLIENT", "NO-EVICT", "on");
            r.call("CONFIG", "SET", "maxmemory-clients", String.valueOf(10 * MB));
            r.call("CONFIG", "SET", "client-output-buffer-limit", "normal " + 3 * MB + " 0 0");
            r.call("SETRANGE", "k", String.valueOf(4 * MB), "v");
            q.call("CLIENT", "SETNAME", "qbuf-client");
            o1.call("CLIENT", "SETNAME", "obuf-client1");
            o2.call("CLIENT", "SETNAME", "obuf-client2");
            int qbsize = 6 * MB; // with the two replies (4 MB each) above the 10 MB limit
            q.sendRaw(("*1\r\n$" + qbsize + "\r\n" + "v".repeat(qbsize)).getBytes(StandardCharsets.US_ASCII));
            Await.waitFor(() -> field(text(r.call("CLIENT", "LIST")), "qbuf-client", "qbuf") >= qbsize, "the query buffer filled");
            o1.send(bytes("GET", "k"));
            o2.send(bytes("GET", "k"));
            Await.waitFor(() -> !text(r.call("CLIENT", "LIST")).contains("obuf-client"), "the output-limited clients closed");
            out.add(text(r.call("CLIENT", "LIST")).contains(" name=qbuf-client ") ? "qbuf-client listed" : "qbuf-client gone");
            for (String line : text(r.call("INFO", "stats")).split("\r\n")) {
                if (line.startsWith("evicted_clients:")) {
                    out.add(line);
                }
            }
            r.call("CONFIG", "SET", "maxmemory-clients", "0");
            r.call("CONFIG", "SET", "client-output-buffer-limit", "normal 0 0 0");
            r.call("DEL", "k");
        }
        return out;
    }

    private static long field(String list, String name, String f) {
        for (String line : list.split("\n")) {
            if (line.contains(" name=" + name + " ")) {
                for (String kv : line.trim().split(" ")) {
                    if (kv.startsWith(f + "=")) {
                        return Long.parseLong(kv.substring(f.length() + 1));
                    }
                }
            }
        }
        return -1;
    }

    private static List<byte[]> bytes(String... args) {
        return Arrays.stream(args).map(s -> s.getBytes(StandardCharsets.UTF_8)).toList();
    }

    private static String text(byte[] reply) {
        return new String(reply, StandardCharsets.ISO_8859_1);
    }
}
