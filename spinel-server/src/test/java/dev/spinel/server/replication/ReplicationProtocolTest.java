package dev.spinel.server.replication;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;

import java.io.DataInputStream;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The master side byte by byte, as a replica sees it: {@code +FULLRESYNC <replid> <offset>}, the RDB as
 * {@code $<len>\r\n<REDIS0010...>}, then the stream from that offset (a SELECT first); {@code +CONTINUE
 * <replid>} and exactly the missing bytes for an offset still in the backlog, a full resync for one that
 * left it.
 */
class ReplicationProtocolTest {
    private static String line(InputStream in) throws Exception {
        StringBuilder sb = new StringBuilder();
        int c;
        while ((c = in.read()) != '\n') {
            if (c < 0) {
                throw new AssertionError("closed after " + sb);
            }
            if (c != '\r') {
                sb.append((char) c);
            }
        }
        return sb.toString();
    }

    private static void send(Socket s, String... words) throws Exception {
        s.getOutputStream().write(RawClient.encode(Arrays.stream(words).map(w -> w.getBytes(StandardCharsets.UTF_8)).toList()));
        s.getOutputStream().flush();
    }

    private static String read(InputStream in, int n) throws Exception {
        byte[] b = new DataInputStream(in).readNBytes(n);
        return new String(b, StandardCharsets.ISO_8859_1);
    }

    @Test
    void fullThenPartialResync() throws Exception {
        try (SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("repl-backlog-size", "16kb"));
             RawClient c = new RawClient(server.port())) {
            c.callString("SET", "before", "1");
            String replid;
            long offset;
            try (Socket s = new Socket("127.0.0.1", server.port())) {
                s.setSoTimeout(10_000);
                InputStream in = s.getInputStream();
                send(s, "REPLCONF", "capa", "psync2");
                assertEquals("+OK", line(in));
                send(s, "PSYNC", "?", "-1");
                String full = line(in);
                assertTrue(full.matches("\\+FULLRESYNC [0-9a-f]{40} \\d+"), full);
                replid = full.split(" ")[1];
                offset = Long.parseLong(full.split(" ")[2]);
                String len = line(in);
                assertTrue(len.startsWith("$"), len);
                String rdb = read(in, Integer.parseInt(len.substring(1)));
                assertTrue(rdb.startsWith("REDIS0010"), rdb.substring(0, 9));
                assertTrue(rdb.contains("before"));
                c.callString("SELECT", "3");
                c.callString("SET", "after", "2");
                String stream = "*2\r\n$6\r\nSELECT\r\n$1\r\n3\r\n*3\r\n$3\r\nSET\r\n$5\r\nafter\r\n$1\r\n2\r\n";
                assertEquals(stream, read(in, stream.length()));
                offset += stream.length();
                send(s, "REPLCONF", "ACK", Long.toString(offset));
                long deadline = System.nanoTime() + 5_000_000_000L;
                while (!c.callString("INFO", "replication").contains(",offset=" + offset + ",")) {
                    assertTrue(System.nanoTime() < deadline, "ACK not seen");
                    Thread.sleep(10);
                }
                // acknowledged already: WAIT answers at once, without a GETACK in the stream
                assertEquals(":1\r\n", c.callString("WAIT", "1", "5000"));
            }
            // the link dropped; a write meanwhile; the replica continues from its offset + 1
            c.callString("SET", "missed", "3");
            String missed = "*3\r\n$3\r\nSET\r\n$6\r\nmissed\r\n$1\r\n3\r\n";
            try (Socket s = new Socket("127.0.0.1", server.port())) {
                s.setSoTimeout(10_000);
                InputStream in = s.getInputStream();
                send(s, "REPLCONF", "capa", "psync2");
                assertEquals("+OK", line(in));
                send(s, "PSYNC", replid, Long.toString(offset + 1));
                assertEquals("+CONTINUE " + replid, line(in));
                assertEquals(missed, read(in, missed.length()));
            }
            // an offset the 16 kB backlog no longer holds: a full resync
            for (int i = 0; i < 200; i++) {
                c.callString("SET", "filler" + i, "x".repeat(200));
            }
            try (Socket s = new Socket("127.0.0.1", server.port())) {
                s.setSoTimeout(10_000);
                InputStream in = s.getInputStream();
                send(s, "PSYNC", replid, Long.toString(offset + 1));
                assertTrue(line(in).startsWith("+FULLRESYNC " + replid + " "));
            }
            String info = c.callString("INFO", "stats");
            assertTrue(info.contains("sync_full:2\r\n"), info);
            assertTrue(info.contains("sync_partial_ok:1\r\n"), info);
            assertTrue(info.contains("sync_partial_err:1\r\n"), info);
        }
    }

    @Test
    void aReplicaThatStopsReadingIsDroppedAtItsOutputLimit() throws Exception {
        // A hard limit below repl-backlog-size counts as repl-backlog-size (Redis 7.0: the replica's bytes are the
        // shared backlog's): 1 MB here counts as 4 MB, and the backlog grows for the replica rather than overrun it.
        try (SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0")
                .with("repl-backlog-size", "4mb").with("client-output-buffer-limit", "replica 1mb 0 0"));
             RawClient c = new RawClient(server.port());
             Socket s = new Socket()) {
            s.setReceiveBufferSize(4096);
            s.connect(new InetSocketAddress("127.0.0.1", server.port()));
            send(s, "PSYNC", "?", "-1");
            assertTrue(line(s.getInputStream()).startsWith("+FULLRESYNC"));
            assertTrue(c.callString("INFO", "replication").contains("connected_slaves:1\r\n"));
            String mb = "x".repeat(1 << 20);
            long deadline = System.nanoTime() + 20_000_000_000L;
            int i = 0;
            while (c.callString("INFO", "replication").contains("connected_slaves:1\r\n")) {
                assertTrue(System.nanoTime() < deadline, "the replica that does not read was never dropped");
                c.callString("SET", "big" + (i++ % 16), mb);
                Thread.sleep(i > 16 ? 100 : 0);
            }
            assertTrue(i >= 4 && i <= 12, "dropped after " + i + " MB, expected at the 4 MB backlog size");
        }
    }
}
