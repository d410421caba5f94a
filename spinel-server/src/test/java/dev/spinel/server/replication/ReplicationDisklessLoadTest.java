package dev.spinel.server.replication;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static dev.spinel.server.replication.ReplicationTest.awaitInSync;
import static dev.spinel.server.replication.ReplicationTest.info;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code repl-diskless-load} on a Spinel replica: every mode syncs fully from redis-server (disk-style payload)
 * and from Spinel (EOF-marked); with {@code swapdb} the old dataset serves reads while the new one arrives
 * (a master that stalls halfway, played by this test), and survives a transfer that is cut or corrupt.
 */
class ReplicationDisklessLoadTest {

    @ParameterizedTest
    @ValueSource(strings = {"disabled", "on-empty-db", "swapdb"})
    void everyModeSyncsFromRedisAndFromSpinel(String mode) throws Exception {
        try (RedisServerProcess redis = RedisServerProcess.start("--repl-diskless-sync", "no");
             SpinelServer spinel = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("repl-diskless-sync-delay", "0"));
             RawClient r = new RawClient(redis.port());
             RawClient s = new RawClient(spinel.port())) {
            for (RawClient m : List.of(r, s)) {
                m.callString("SET", "str", "v", "PX", "600000");
                m.callString("RPUSH", "list", "a", "b", "c");
                m.callString("HSET", "hash", "f", "1", "g", "2");
                m.callString("ZADD", "zset", "1", "x", "2", "y");
                m.callString("SELECT", "1");
                m.callString("SADD", "set", "p", "q");
                m.callString("SELECT", "0");
            }
            for (RawClient m : List.of(r, s)) {
                int port = m == r ? redis.port() : spinel.port();
                for (boolean emptyBefore : List.of(true, false)) {
                    try (SpinelServer replica = SpinelServer.start(ServerConfig.defaults().with("port", "0")
                            .with("repl-diskless-load", mode));
                         RawClient c = new RawClient(replica.port())) {
                        if (!emptyBefore) {
                            c.callString("SET", "stale", "1"); // a full sync replaces it
                        }
                        c.callString("REPLICAOF", "127.0.0.1", Integer.toString(port));
                        awaitInSync(m, c);
                        assertEquals(Dataset.of(m), Dataset.of(c), mode + (m == r ? " from redis" : " from spinel"));
                        m.callString("INCR", "counter"); // the stream goes on after the load
                        awaitInSync(m, c);
                        assertEquals(Dataset.of(m), Dataset.of(c));
                    }
                }
            }
        }
    }

    /**
     * As Redis 7.0: a swapdb load from a new history (a master whose replication ID is not the one we followed)
     * refuses clients with -LOADING (INFO loading:1); one from the same history is an async load (async_loading:1)
     * that serves the old dataset and refuses only the commands flagged no_async_loading (REPLICAOF) and CONFIG
     * SET of appendonly / repl-diskless-load / dir. Either way a cut transfer keeps the old dataset.
     */
    @Test
    void swapdbServesTheOldDataWhileLoadingAndKeepsItWhenTheTransferIsCut() throws Exception {
        byte[] rdb = redisRdb();
        try (ServerSocket fake = new ServerSocket(0);
             SpinelServer replica = SpinelServer.start(ServerConfig.defaults().with("port", "0")
                     .with("repl-diskless-load", "swapdb"));
             RawClient c = new RawClient(replica.port())) {
            c.callString("SET", "old", "1");
            c.callString("REPLICAOF", "127.0.0.1", Integer.toString(fake.getLocalPort()));
            try (Socket link = fake.accept()) {
                OutputStream out = FakeMasterIo.handshake(link);
                out.write(("$" + rdb.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
                out.write(rdb, 0, rdb.length / 2);
                out.flush();
                awaitSyncInProgress(c);
                awaitInfo(c, "loading", "1"); // a new history: not served meanwhile
                assertEquals("0", persistence(c).get("async_loading"));
                assertEquals("-LOADING Redis is loading the dataset in memory\r\n", c.callString("GET", "old"));
                assertEquals("-LOADING Redis is loading the dataset in memory\r\n", c.callString("CONFIG", "SET", "appendonly", "no"));
                assertEquals("-LOADING Redis is loading the dataset in memory\r\n", c.callString("PING")); // not flagged loading
                assertEquals("$5\r\nhello\r\n", c.callString("ECHO", "hello")); // flagged loading
            } // cut halfway
            awaitInfo(c, "loading", "0");
            assertEquals("$1\r\n1\r\n", c.callString("GET", "old"));
            assertEquals(":1\r\n", c.callString("DBSIZE"));

            // the master comes back (the replica retries every second) and sends it whole this time
            try (Socket link = fake.accept()) {
                OutputStream out = FakeMasterIo.handshake(link);
                out.write(("$" + rdb.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
                out.write(rdb);
                out.flush();
                awaitLinkUp(c);
                assertEquals("$-1\r\n", c.callString("GET", "old"));
                assertEquals("$2\r\nv0\r\n", c.callString("GET", "k0"));
                assertEquals(":100\r\n", c.callString("DBSIZE"));
            }
            // the same master's history again (a full resync it had to make): an async load
            try (Socket link = fake.accept()) {
                OutputStream out = FakeMasterIo.handshake(link);
                out.write(("$" + rdb.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
                out.write(rdb, 0, rdb.length / 2);
                out.flush();
                awaitInfo(c, "async_loading", "1");
                assertEquals("0", persistence(c).get("loading"));
                assertEquals("$2\r\nv0\r\n", c.callString("GET", "k0"));
                assertEquals(":100\r\n", c.callString("DBSIZE"));
                assertEquals("-LOADING Redis is loading the dataset in memory\r\n", c.callString("REPLICAOF", "NO", "ONE"));
                assertEquals("-LOADING Redis is loading the dataset in memory\r\n",
                        c.callString("CONFIG", "SET", "maxmemory", "0", "repl-diskless-load", "disabled"));
                assertEquals("+OK\r\n", c.callString("MULTI"));
                assertEquals("-LOADING Redis is loading the dataset in memory\r\n", c.callString("REPLICAOF", "NO", "ONE"));
                assertEquals("-EXECABORT Transaction discarded because of previous errors.\r\n", c.callString("EXEC"));
            } // cut halfway
            awaitInfo(c, "async_loading", "0");
            assertEquals(":100\r\n", c.callString("DBSIZE"));
            c.callString("REPLICAOF", "NO", "ONE");
        }
    }

    @Test
    void swapdbKeepsTheOldDataWhenThePayloadIsCorrupt() throws Exception {
        byte[] rdb = redisRdb();
        byte[] bad = Arrays.copyOf(rdb, rdb.length);
        bad[bad.length - 1] ^= 0x5a; // the checksum no longer matches
        try (ServerSocket fake = new ServerSocket(0);
             SpinelServer replica = SpinelServer.start(ServerConfig.defaults().with("port", "0")
                     .with("repl-diskless-load", "swapdb"));
             RawClient c = new RawClient(replica.port())) {
            c.callString("SET", "old", "1");
            c.callString("REPLICAOF", "127.0.0.1", Integer.toString(fake.getLocalPort()));
            try (Socket link = fake.accept()) {
                OutputStream out = FakeMasterIo.handshake(link);
                String mark = "0123456789abcdef0123456789abcdef01234567";
                out.write(("$EOF:" + mark + "\r\n").getBytes(StandardCharsets.US_ASCII));
                out.write(bad);
                out.write(mark.getBytes(StandardCharsets.US_ASCII));
                out.flush();
                assertEquals(-1, link.getInputStream().read()); // the replica gives the link up
            }
            Thread.sleep(200);
            assertEquals("down", info(c).get("master_link_status"));
            assertEquals("$1\r\n1\r\n", c.callString("GET", "old"));
            assertEquals(":1\r\n", c.callString("DBSIZE"));
            c.callString("REPLICAOF", "NO", "ONE");
        }
    }

    /** An RDB of 100 keys k0..k99 = v0..v99, saved by redis-server 7.0. */
    private static byte[] redisRdb() throws Exception {
        try (RedisServerProcess redis = RedisServerProcess.start();
             RawClient r = new RawClient(redis.port())) {
            for (int i = 0; i < 100; i++) {
                r.callString("SET", "k" + i, "v" + i);
            }
            assertEquals("+OK\r\n", r.callString("SAVE"));
            return Files.readAllBytes(redis.dir().resolve("dump.rdb"));
        }
    }

    private static Map<String, String> persistence(RawClient c) throws Exception {
        Map<String, String> m = new TreeMap<>();
        for (String line : new String(c.call("INFO", "persistence"), StandardCharsets.UTF_8).split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0) {
                m.put(line.substring(0, colon), line.substring(colon + 1));
            }
        }
        return m;
    }

    private static void awaitInfo(RawClient c, String field, String value) throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!value.equals(persistence(c).get(field))) {
            assertTrue(System.nanoTime() < deadline, field + " never " + value);
            Thread.sleep(20);
        }
    }

    private static void awaitSyncInProgress(RawClient c) throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!"1".equals(info(c).get("master_sync_in_progress"))) {
            assertTrue(System.nanoTime() < deadline, "no sync in progress");
            Thread.sleep(20);
        }
    }

    private static void awaitLinkUp(RawClient c) throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!"up".equals(info(c).get("master_link_status"))) {
            assertTrue(System.nanoTime() < deadline, "link not up");
            Thread.sleep(20);
        }
    }
}
