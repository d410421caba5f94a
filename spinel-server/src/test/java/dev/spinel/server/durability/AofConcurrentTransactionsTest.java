package dev.spinel.server.durability;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

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
 * clients on different event loops running MULTI/EXEC at the same time each get their own block in the log, whole,
 * with only their own commands, and the log replays to the same counts.
 */
class AofConcurrentTransactionsTest {
    private static final int CLIENTS = 4;
    private static final int TRANSACTIONS = 50;

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
                            for (int t = 0; t < TRANSACTIONS; t++) {
                                c.call("MULTI");
                                c.call("SET", "k" + client + ":" + t, "v", "EX", "1000"); // rewritten to PXAT
                                c.call("INCR", "c" + client);
                                assertTrue(c.callString("EXEC").startsWith("*2\r\n"));
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
        int db = -1;
        for (int i = 0; i < log.size(); i++) {
            List<String> cmd = log.get(i);
            if (cmd.get(0).equals("SELECT")) {
                db = Integer.parseInt(cmd.get(1));
                continue;
            }
            assertEquals("MULTI", cmd.get(0), "command " + i + " outside a block: " + cmd);
            int client = db - 1;
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

        try (SpinelServer s = start(); RawClient c = new RawClient(s.port())) {
            for (int i = 0; i < CLIENTS; i++) {
                c.call("SELECT", Integer.toString(i + 1));
                assertEquals("$" + Integer.toString(TRANSACTIONS).length() + "\r\n" + TRANSACTIONS + "\r\n",
                        c.callString("GET", "c" + i));
                assertEquals(":" + (TRANSACTIONS + 1) + "\r\n", c.callString("DBSIZE"));
            }
        }
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
