package dev.spinel.server.durability;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The propagator's scratch state (the encoder and the frames a transaction collects until EXEC) is per thread:
 * clients on different event loops running MULTI/EXEC and rewritten writes (SET PX logged as PXAT) at the same
 * time each get their own blocks and commands in the log, whole, and the log replays to the same keys and counts.
 */
class AofConcurrentTransactionsTest {
    private static final int CLIENTS = 4;
    private static final int TRANSACTIONS = 100;
    /** Plain writes sent with each transaction. */
    private static final int ALONE = 20;
    private static final String VALUE = "x".repeat(2000);

    @TempDir
    Path dir;

    private SpinelServer start() {
        return SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", dir.toString())
                .with("appendonly", "yes").with("appendfsync", "no").with("event-loop-threads", "2"));
    }

    @Test
    @Timeout(60)
    void transactionsFromSeveralLoopsAreLoggedAsWholeBlocksOfTheirOwnCommands() throws Exception {
        try (SpinelServer s = start()) {
            ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int i = 0; i < CLIENTS; i++) {
                    int client = i;
                    done.add(pool.submit(() -> {
                        try (RawClient c = new RawClient(s.port())) {
                            c.call("SELECT", Integer.toString(client + 1));
                            for (int t = 0; t < TRANSACTIONS; t++) { // one write per transaction: one round trip
                                // and writes of their own: both loops encode at once (a large value, a long encoding)
                                byte[][] batch = new byte[4 + ALONE][];
                                batch[0] = command("MULTI");
                                batch[1] = command("SET", "k" + client + ":" + t, "v", "EX", "1000"); // logged with PXAT
                                batch[2] = command("INCR", "c" + client);
                                batch[3] = command("EXEC");
                                for (int a = 0; a < ALONE; a++) {
                                    batch[4 + a] = command("SET", "p" + client + ":" + (t * ALONE + a), VALUE, "PX", "1000000");
                                }
                                c.sendRaw(concat(batch));
                                for (int r = 0; r < 3; r++) {
                                    c.readReply();
                                }
                                String exec = new String(c.readReply(), StandardCharsets.ISO_8859_1);
                                assertTrue(exec.startsWith("*2\r\n"), exec);
                                for (int a = 0; a < ALONE; a++) {
                                    assertEquals("+OK\r\n", new String(c.readReply(), StandardCharsets.ISO_8859_1));
                                }
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> f : done) {
                    f.get();
                }
            } finally {
                pool.shutdownNow();
            }
        }
        List<List<String>> log = parse(Files.readAllBytes(dir.resolve("appendonlydir").resolve("appendonly.aof.1.incr.aof")));
        int blocks = 0;
        int alone = 0;
        int db = -1;
        for (int i = 0; i < log.size(); i++) {
            List<String> cmd = log.get(i);
            if (cmd.get(0).equals("SELECT")) {
                db = Integer.parseInt(cmd.get(1));
                continue;
            }
            int client = db - 1;
            if (cmd.get(0).equals("SET")) {
                assertTrue(cmd.get(1).startsWith("p" + client + ":") && cmd.get(2).equals(VALUE) && cmd.contains("PXAT"),
                        cmd.get(1) + " " + cmd.subList(3, cmd.size()) + " in db " + db);
                alone++;
                continue;
            }
            assertEquals("MULTI", cmd.get(0), "command " + i + " outside a block: " + cmd);
            List<String> set = log.get(i + 1);
            List<String> incr = log.get(i + 2);
            assertEquals("SET", set.get(0), set.toString());
            assertTrue(set.get(1).startsWith("k" + client + ":") && set.contains("PXAT"), set + " in db " + db);
            assertEquals(List.of("INCR", "c" + client), incr);
            assertEquals(List.of("EXEC"), log.get(i + 3));
            blocks++;
            i += 3;
        }
        assertEquals(CLIENTS * TRANSACTIONS, blocks);
        assertEquals(CLIENTS * TRANSACTIONS * ALONE, alone);

        try (SpinelServer s = start(); RawClient c = new RawClient(s.port())) {
            for (int i = 0; i < CLIENTS; i++) {
                c.call("SELECT", Integer.toString(i + 1));
                assertEquals("$" + Integer.toString(TRANSACTIONS).length() + "\r\n" + TRANSACTIONS + "\r\n",
                        c.callString("GET", "c" + i));
                assertEquals(":" + ((1 + ALONE) * TRANSACTIONS + 1) + "\r\n", c.callString("DBSIZE"));
            }
        }
    }

    private static byte[] command(String... args) {
        List<byte[]> a = new ArrayList<>();
        for (String x : args) {
            a.add(x.getBytes(StandardCharsets.ISO_8859_1));
        }
        return RawClient.encode(a);
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            b.writeBytes(p);
        }
        return b.toByteArray();
    }

    /** The log's commands: RESP arrays of bulk strings, back to back. */
    private static List<List<String>> parse(byte[] b) {
        List<List<String>> out = new ArrayList<>();
        int[] pos = {0};
        while (pos[0] < b.length) {
            assertEquals('*', b[pos[0]++]);
            int n = (int) number(b, pos);
            List<String> cmd = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                assertEquals('$', b[pos[0]++]);
                int len = (int) number(b, pos);
                cmd.add(new String(b, pos[0], len, StandardCharsets.ISO_8859_1));
                pos[0] += len + 2;
            }
            out.add(cmd);
        }
        return out;
    }

    private static long number(byte[] b, int[] pos) {
        long v = 0;
        while (b[pos[0]] != '\r') {
            v = v * 10 + (b[pos[0]++] - '0');
        }
        pos[0] += 2;
        return v;
    }
}
