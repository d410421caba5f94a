package dev.spinel.server.replication;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A replica's link carries the RDB and the stream, so a command the replica sends that would reply is not answered:
 * the replica is disconnected, and one that touches the keyspace is refused first (that refusal is itself a reply),
 * as Redis 7.0 (replication.tcl "replica do not write the reply to the replication link"). Before, the reply went
 * into the link, where the replica read it as part of the stream. For a redis-server and a Spinel master: after
 * SYNC or PSYNC, a PING, XINFO HELP, GET or SLOWLOG GET closes the link without its reply; REPLCONF ACK does not.
 */
class ReplicaRepliesTest {
    /** What the link receives after {@code sync} then {@code command}, up to its close (null: still open after 1.5 s). */
    private static String linkAfter(int port, String sync, String command) throws Exception {
        try (Socket s = new Socket("127.0.0.1", port)) {
            OutputStream out = s.getOutputStream();
            out.write((sync + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            Thread.sleep(100); // the sync first, as a replica sends its commands only after it
            out.write((command + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            s.setSoTimeout(1500);
            InputStream in = s.getInputStream();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            byte[] buf = new byte[8192];
            try {
                for (int n; (n = in.read(buf)) >= 0; ) {
                    got.write(buf, 0, n);
                }
            } catch (SocketTimeoutException open) {
                return null;
            } catch (java.io.IOException reset) {
                // closed by the server with unread input: a reset
            }
            return got.toString(StandardCharsets.ISO_8859_1);
        }
    }

    private static void check(int port) throws Exception {
        for (String sync : List.of("SYNC", "PSYNC replicationid -1")) {
            for (String cmd : List.of("PING", "XINFO HELP", "GET foo", "SLOWLOG GET")) {
                String got = linkAfter(port, sync, cmd);
                assertTrue(got != null, sync + " then " + cmd + ": the link stays open");
                assertFalse(got.contains("PONG") || got.contains("XINFO") || got.contains("keyspace") || got.contains("$-1\r\n"),
                        sync + " then " + cmd + ": its reply went into the link: " + got);
            }
        }
        assertEquals(null, linkAfter(port, "SYNC", "REPLCONF ACK 0"), "REPLCONF ACK is no reply: the link stays");
        try (RawClient c = new RawClient(port)) {
            assertEquals("+PONG\r\n", c.callString("PING"));
        }
    }

    @Test
    void aReplicaCommandThatWouldReplyDisconnectsIt() throws Exception {
        Path dir = Files.createTempDirectory("spinel-replica-replies");
        try (RedisServerProcess redis = RedisServerProcess.start();
             SpinelServer spinel = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", dir.toString()))) {
            check(redis.port());
            check(spinel.port());
        }
    }
}
