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
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;

import static dev.spinel.server.replication.ReplicationTest.awaitInSync;
import static dev.spinel.server.replication.ReplicationTest.info;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Full resyncs as Redis 7.0 makes them: diskless ({@code $EOF:<40-byte mark>}, the stream only after the
 * replica's first ACK, repl-diskless-sync-delay gathering replicas on one snapshot) or disk-style, both as
 * master and as replica of redis-server; and partial resyncs after a restart, from the repl-id/repl-offset
 * AUX fields of the RDB, for a restarted replica and a restarted master.
 */
class ReplicationSyncTest {
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
        return new String(new DataInputStream(in).readNBytes(n), StandardCharsets.ISO_8859_1);
    }

    /** The bytes up to {@code mark} (excluded), as a diskless replica reads them. */
    private static byte[] untilMark(InputStream in, byte[] mark) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        while (true) {
            int b = in.read();
            assertTrue(b >= 0, "closed before the EOF mark");
            out.write(b);
            byte[] all = out.toByteArray();
            if (all.length >= mark.length && Arrays.equals(all, all.length - mark.length, all.length, mark, 0, mark.length)) {
                return Arrays.copyOf(all, all.length - mark.length);
            }
        }
    }

    @Test
    void disklessPayloadThenTheStreamAfterTheFirstAck() throws Exception {
        try (SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("repl-diskless-sync-delay", "0"));
             RawClient c = new RawClient(server.port());
             Socket s = new Socket("127.0.0.1", server.port())) {
            c.callString("SET", "before", "1");
            s.setSoTimeout(10_000);
            InputStream in = s.getInputStream();
            send(s, "REPLCONF", "capa", "eof", "capa", "psync2");
            assertEquals("+OK", line(in));
            send(s, "PSYNC", "?", "-1");
            String full = line(in);
            assertTrue(full.matches("\\+FULLRESYNC [0-9a-f]{40} \\d+"), full);
            long offset = Long.parseLong(full.split(" ")[2]);
            String header = line(in);
            assertTrue(header.matches("\\$EOF:[0-9a-f]{40}"), header);
            byte[] rdb = untilMark(in, header.substring(5).getBytes(StandardCharsets.US_ASCII));
            String text = new String(rdb, StandardCharsets.ISO_8859_1);
            assertTrue(text.startsWith("REDIS0010") && text.contains("before"), text);
            c.callString("SET", "after", "2");
            s.setSoTimeout(300);
            assertThrows(SocketTimeoutException.class, in::read, "the stream came before the replica's ACK");
            s.setSoTimeout(10_000);
            send(s, "REPLCONF", "ACK", Long.toString(offset));
            String stream = "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n*3\r\n$3\r\nSET\r\n$5\r\nafter\r\n$1\r\n2\r\n";
            assertEquals(stream, read(in, stream.length()));
        }
    }

    @Test
    void theDelayGathersReplicasOnOneSnapshotAndDiskStyleWhenOff() throws Exception {
        try (SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("repl-diskless-sync-delay", "1"));
             RawClient c = new RawClient(server.port());
             Socket a = new Socket("127.0.0.1", server.port());
             Socket b = new Socket("127.0.0.1", server.port())) {
            for (Socket s : new Socket[] {a, b}) {
                s.setSoTimeout(10_000);
                send(s, "REPLCONF", "capa", "eof");
                assertEquals("+OK", line(s.getInputStream()));
            }
            long t0 = System.nanoTime();
            send(a, "PSYNC", "?", "-1");
            Thread.sleep(200);
            c.callString("SET", "between", "1");
            send(b, "PSYNC", "?", "-1");
            String fa = line(a.getInputStream());
            String fb = line(b.getInputStream());
            assertTrue((System.nanoTime() - t0) / 1_000_000 >= 900, "the transfer did not wait for repl-diskless-sync-delay");
            assertEquals(fa, fb); // one snapshot, one offset for both
            assertTrue(line(a.getInputStream()).startsWith("$EOF:"));

            assertEquals("+OK\r\n", c.callString("CONFIG", "SET", "repl-diskless-sync", "no"));
            try (Socket d = new Socket("127.0.0.1", server.port())) {
                d.setSoTimeout(10_000);
                send(d, "REPLCONF", "capa", "eof");
                assertEquals("+OK", line(d.getInputStream()));
                send(d, "PSYNC", "?", "-1");
                assertTrue(line(d.getInputStream()).startsWith("+FULLRESYNC "));
                String len = line(d.getInputStream());
                assertTrue(len.matches("\\$\\d+"), len);
            }
        }
    }

    @Test
    void spinelLoadsFromADisklessAndADiskRedisServer() throws Exception {
        for (String diskless : new String[] {"yes", "no"}) {
            try (RedisServerProcess master = RedisServerProcess.start("--repl-diskless-sync", diskless,
                    "--repl-diskless-sync-delay", "0", "--loglevel", "notice");
                 RawClient m = new RawClient(master.port())) {
                Workload.run(m, new Random(31), 300);
                try (SpinelServer replica = SpinelServer.start(ServerConfig.defaults().with("port", "0")
                        .with("replicaof", "127.0.0.1 " + master.port()));
                     RawClient r = new RawClient(replica.port())) {
                    awaitInSync(m, r);
                    Workload.run(m, new Random(32), 300);
                    awaitInSync(m, r);
                    assertEquals(Dataset.of(m), Dataset.of(r));
                    String log = Files.readString(master.dir().resolve("redis.log"));
                    assertTrue(log.contains(diskless.equals("yes") ? "target: replicas sockets" : "target: disk"), log);
                }
            }
        }
    }

    @Test
    void aRestartedSpinelReplicaContinuesFromItsRdb() throws Exception {
        Path dir = Files.createTempDirectory("spinel-replica-restart");
        try (RedisServerProcess master = RedisServerProcess.start("--repl-diskless-sync-delay", "0");
             RawClient m = new RawClient(master.port())) {
            Workload.run(m, new Random(33), 300);
            ServerConfig cfg = ServerConfig.defaults().with("port", "0").with("dir", dir.toString())
                    .with("replicaof", "127.0.0.1 " + master.port());
            try (SpinelServer replica = SpinelServer.start(cfg);
                 RawClient r = new RawClient(replica.port())) {
                Workload.run(m, new Random(34), 300);
                awaitInSync(m, r);
                assertEquals("+OK\r\n", r.callString("SAVE"));
            }
            Workload.run(m, new Random(35), 200); // while the replica is down
            try (SpinelServer replica = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", dir.toString())
                    .with("replicaof", "127.0.0.1 " + master.port()));
                 RawClient r = new RawClient(replica.port())) {
                awaitInSync(m, r);
                assertEquals(Dataset.of(m), Dataset.of(r));
                Map<String, String> mi = info(m);
                assertEquals("1", mi.get("sync_full"));
                assertEquals("1", mi.get("sync_partial_ok"));
            }
        }
    }

    @Test
    void aRestartedSpinelMasterLetsItsReplicaContinue() throws Exception {
        Path dir = Files.createTempDirectory("spinel-master-restart");
        int port = RedisServerProcess.freePort();
        // no PING into the stream between the SAVE and the stop: the replica's offset is the RDB's
        ServerConfig cfg = ServerConfig.defaults().with("port", Integer.toString(port)).with("dir", dir.toString())
                .with("repl-diskless-sync-delay", "0").with("repl-ping-replica-period", "3600")
                .with("enable-debug-command", "yes");
        String oldId;
        try (SpinelServer master = SpinelServer.start(cfg);
             RawClient m = new RawClient(master.port());
             RedisServerProcess replica = RedisServerProcess.start("--replicaof", "127.0.0.1", Integer.toString(port));
             RawClient r = new RawClient(replica.port())) {
            Workload.run(m, new Random(36), 300);
            // no expiry DEL into the stream between the SAVE and the stop either (Redis saves at the very end)
            assertEquals("+OK\r\n", m.callString("DEBUG", "SET-ACTIVE-EXPIRE", "0"));
            awaitInSync(m, r);
            assertEquals(":1\r\n", m.callString("WAIT", "1", "5000"));
            oldId = info(m).get("master_replid");
            assertEquals("+OK\r\n", m.callString("SAVE"));
            master.close();
            try (SpinelServer restarted = SpinelServer.start(ServerConfig.defaults().with("port", Integer.toString(port))
                    .with("dir", dir.toString()));
                 RawClient m2 = new RawClient(restarted.port())) {
                Map<String, String> mi = info(m2);
                assertEquals(oldId, mi.get("master_replid2"));
                Workload.run(m2, new Random(37), 200);
                awaitInSync(m2, r);
                assertEquals(Dataset.of(m2), Dataset.of(r));
                mi = info(m2);
                assertEquals("0", mi.get("sync_full"));
                assertEquals("1", mi.get("sync_partial_ok"));
                assertEquals(mi.get("master_replid"), info(r).get("master_replid"));
            }
        }
    }
}
