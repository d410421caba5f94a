package dev.spinel.server.net;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import static dev.spinel.server.testing.Await.waitFor;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Plain connections read with Netty's {@code AUTO_READ} off, the handler asking for each next read at the end of
 * a batch ({@link ReplyFlusher#armRead}): input larger than one read still arrives whole (one read per wake-up, the
 * rest on the next), and a client whose replies filled the socket gets reading back once it drains them
 * ({@link ReplyFlusher#resumeReading}). A read that is never re-armed shows here as a hang, not as a wrong reply.
 */
class ManualReadsTest {
    private static SpinelServer oneLoop() {
        return SpinelServer.start(ServerConfig.defaults().with("port", "0").with("event-loop-threads", "1"));
    }

    @Test
    @Timeout(30)
    void inputOfManyReadsIsAllExecuted() throws Exception {
        try (SpinelServer server = oneLoop(); RawClient c = new RawClient(server.port())) {
            byte[] value = new byte[1000];
            Arrays.fill(value, (byte) 'v');
            ByteArrayOutputStream burst = new ByteArrayOutputStream();
            int n = 2000; // ~2 MB: dozens of 64 KiB reads
            for (int i = 0; i < n; i++) {
                burst.writeBytes(RawClient.encode(List.of("SET".getBytes(StandardCharsets.US_ASCII),
                        ("k" + i).getBytes(StandardCharsets.US_ASCII), value)));
            }
            c.sendRaw(burst.toByteArray());
            for (int i = 0; i < n; i++) {
                assertEquals("+OK\r\n", new String(c.readReply(), StandardCharsets.US_ASCII));
            }
            assertEquals(":" + n + "\r\n", c.callString("DBSIZE"));
        }
    }

    @Test
    @Timeout(60)
    void readingResumesOnceAClientDrainsRepliesThatFilledItsSocket() throws Exception {
        try (SpinelServer server = oneLoop(); RawClient c = new RawClient(server.port());
             RawClient admin = new RawClient(server.port())) {
            byte[] big = new byte[100_000];
            Arrays.fill(big, (byte) 'b');
            assertEquals("+OK\r\n", new String(c.call(List.of("SET".getBytes(StandardCharsets.US_ASCII),
                    "big".getBytes(StandardCharsets.US_ASCII), big)), StandardCharsets.US_ASCII));
            ByteArrayOutputStream burst = new ByteArrayOutputStream();
            int n = 400; // 40 MB of replies: far more than the socket buffers and Netty's high water mark hold
            for (int i = 0; i < n; i++) {
                burst.writeBytes(RawClient.encode(List.of("GET".getBytes(StandardCharsets.US_ASCII),
                        "big".getBytes(StandardCharsets.US_ASCII))));
            }
            burst.writeBytes(RawClient.encode(List.of("PING".getBytes(StandardCharsets.US_ASCII))));
            c.sendRaw(burst.toByteArray());
            // the server stops at a full socket, with output queued that the client has not taken
            waitFor(() -> admin.callString("CLIENT", "LIST").lines().anyMatch(l -> l.matches(".* omem=[1-9].* cmd=get .*")),
                    "the output to back up");
            int replyLength = ("$" + big.length + "\r\n").length() + big.length + 2;
            for (int i = 0; i < n; i++) {
                assertEquals(replyLength, c.readReply().length, "reply " + i);
            }
            assertEquals("+PONG\r\n", new String(c.readReply(), StandardCharsets.US_ASCII));
            assertEquals("+PONG\r\n", c.callString("PING"), "reading resumed");
        }
    }
}
