package dev.spinel.server.replication;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a replica receives for commands Redis 7.0 propagates in a form of their own, the bytes from a redis-server
 * master and from a Spinel master compared: FLUSHDB and FLUSHALL even when there is nothing to flush
 * (forceCommandPropagation; replication.tcl "FLUSHDB / FLUSHALL should replicate"), GETSET as SET ("GETSET
 * replication"), BRPOPLPUSH as RPOPLPUSH whether it was served at once or after blocking ("BRPOPLPUSH replication").
 */
class EmptyFlushStreamTest {
    private static String stream(int port, String[]... commands) throws Exception {
        try (RawClient c = new RawClient(port); Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(10_000);
            InputStream in = s.getInputStream();
            s.getOutputStream().write("PSYNC ? -1\r\n".getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            String full = line(in);
            assertTrue(full.startsWith("+FULLRESYNC"), full);
            String len;
            do {
                len = line(in); // newlines before the payload are the master's keepalives
            } while (len.isEmpty());
            new DataInputStream(in).readNBytes(Integer.parseInt(len.substring(1)));
            for (String[] cmd : commands) {
                c.callString(cmd);
            }
            c.callString("SET", "k", "v");
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            String end = "$1\r\nk\r\n$1\r\nv\r\n";
            while (!got.toString(StandardCharsets.ISO_8859_1).endsWith(end)) {
                int b = in.read();
                assertTrue(b >= 0, "closed after " + got);
                got.write(b);
            }
            return got.toString(StandardCharsets.ISO_8859_1);
        }
    }

    private static String line(InputStream in) throws Exception {
        StringBuilder sb = new StringBuilder();
        int c;
        while ((c = in.read()) != '\n') {
            assertTrue(c >= 0, "closed after " + sb);
            if (c != '\r') {
                sb.append((char) c);
            }
        }
        return sb.toString();
    }

    @Test
    void emptyFlushesAreReplicated() throws Exception {
        try (RedisServerProcess redis = RedisServerProcess.start("--repl-diskless-sync", "no", "--repl-ping-replica-period", "60");
             SpinelServer spinel = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("repl-diskless-sync", "no")
                     .with("repl-ping-replica-period", "60"))) {
            String[][] flushes = {{"SELECT", "2"}, {"FLUSHDB"}, {"FLUSHDB"}, {"FLUSHALL"}};
            String expected = stream(redis.port(), flushes);
            assertTrue(expected.contains("FLUSHDB") || expected.contains("flushdb"), expected);
            assertEquals(expected.toLowerCase(), stream(spinel.port(), flushes).toLowerCase());
        }
    }

    @Test
    void brpoplpushIsReplicatedAsRpoplpush() throws Exception {
        try (RedisServerProcess redis = RedisServerProcess.start("--repl-diskless-sync", "no", "--repl-ping-replica-period", "60");
             SpinelServer spinel = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("repl-diskless-sync", "no")
                     .with("repl-ping-replica-period", "60"))) {
            String expected = null;
            for (int port : new int[] {redis.port(), spinel.port()}) {
                try (RawClient blocked = new RawClient(port)) {
                    blocked.send(List.of("BRPOPLPUSH".getBytes(), "a".getBytes(), "b".getBytes(), "5".getBytes()));
                    Thread.sleep(300); // blocked on the empty list: served by the LPUSH below
                    String got = stream(port, new String[] {"LPUSH", "a", "foo"}, new String[] {"RPUSH", "c", "1"},
                            new String[] {"BRPOPLPUSH", "c", "d", "1"});
                    if (expected == null) {
                        expected = got;
                        assertTrue(expected.toLowerCase().contains("rpoplpush"), expected);
                    } else {
                        assertEquals(expected.toLowerCase(), got.toLowerCase());
                    }
                }
            }
        }
    }

    @Test
    void getsetIsReplicatedAsSet() throws Exception {
        try (RedisServerProcess redis = RedisServerProcess.start("--repl-diskless-sync", "no", "--repl-ping-replica-period", "60");
             SpinelServer spinel = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("repl-diskless-sync", "no")
                     .with("repl-ping-replica-period", "60"))) {
            String[][] writes = {{"SET", "g", "foo"}, {"GETSET", "g", "bar"}, {"SET", "g", "vaz", "GET"}};
            String expected = stream(redis.port(), writes);
            assertTrue(!expected.toLowerCase().contains("getset"), expected);
            assertEquals(expected.toLowerCase(), stream(spinel.port(), writes).toLowerCase());
        }
    }
}
