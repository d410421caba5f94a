package dev.spinel.server.replication;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;

import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static dev.spinel.server.testing.Await.waitFor;

/**
 * A diskless full resync of an RDB many times the size of the chunks it is streamed in, to a redis-server replica
 * and a Spinel replica that share one transfer (repl-diskless-sync-delay), while the master keeps writing: both
 * end with the master's dataset (DEBUG DIGEST) and offset, and the master's log names one streamed RDB.
 */
class ReplicationStreamedRdbTest {
    @Test
    void aLargeDisklessRdbIsStreamedToEveryReplicaOfTheTransfer() throws Exception {
        try (SpinelServer master = SpinelServer.start(ServerConfig.defaults().with("port", "0")
                .with("repl-diskless-sync", "yes").with("repl-diskless-sync-delay", "1").with("rdbcompression", "no").with("enable-debug-command", "yes"));
             RawClient m = new RawClient(master.port());
             RedisServerProcess redis = RedisServerProcess.start("--enable-debug-command", "yes");
             SpinelServer spinel = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("repl-diskless-load", "swapdb")
                     .with("enable-debug-command", "yes"));
             RawClient r = new RawClient(redis.port());
             RawClient s = new RawClient(spinel.port())) {
            assertEquals("+OK\r\n", m.callString("DEBUG", "POPULATE", "300", "key", "100000")); // 30 MB: > 100 chunks
            r.callString("REPLICAOF", "127.0.0.1", Integer.toString(master.port()));
            s.callString("REPLICAOF", "127.0.0.1", Integer.toString(master.port()));
            for (int i = 0; i < 200; i++) { // writes while the replicas attach: in the snapshot or held for after it
                m.callString("SET", "during" + i, "v" + i);
            }
            waitFor(() -> r.callString("INFO", "replication").contains("master_link_status:up")
                    && s.callString("INFO", "replication").contains("master_link_status:up"), "both links up");
            m.callString("SET", "last", "1");
            String offset = field(m.callString("INFO", "replication"), "master_repl_offset");
            waitFor(() -> field(r.callString("INFO", "replication"), "slave_repl_offset").equals(offset)
                    && field(s.callString("INFO", "replication"), "slave_repl_offset").equals(offset), "offsets " + offset);
            String digest = m.callString("DEBUG", "DIGEST");
            assertEquals(digest, r.callString("DEBUG", "DIGEST"));
            assertEquals(digest, s.callString("DEBUG", "DIGEST"));
            assertEquals(":501\r\n", s.callString("DBSIZE"));
            assertEquals("2", field(m.callString("INFO", "stats"), "sync_full"));
        }
    }

    /**
     * A replica of the same transfer that reads nothing (a stopped process) is dropped after repl-timeout, as Redis's
     * "Disconnecting timedout replica (full sync)", and the other replica's transfer, paced by the slowest, goes on.
     */
    @Test
    void aReplicaThatTakesNothingIsDroppedAndTheTransferGoesOn() throws Exception {
        try (SpinelServer master = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("repl-timeout", "2")
                .with("repl-diskless-sync", "yes").with("repl-diskless-sync-delay", "3").with("rdbcompression", "no")
                .with("enable-debug-command", "yes"));
             RawClient m = new RawClient(master.port());
             RedisServerProcess redis = RedisServerProcess.start("--enable-debug-command", "yes");
             RawClient r = new RawClient(redis.port());
             Socket stuck = new Socket()) {
            assertEquals("+OK\r\n", m.callString("DEBUG", "POPULATE", "300", "key", "100000"));
            stuck.setReceiveBufferSize(4096);
            stuck.connect(new InetSocketAddress("127.0.0.1", master.port()));
            OutputStream out = stuck.getOutputStream();
            out.write(RawClient.encode(List.of("REPLCONF".getBytes(), "capa".getBytes(), "eof".getBytes())));
            out.write(RawClient.encode(List.of("PSYNC".getBytes(), "?".getBytes(), "-1".getBytes())));
            out.flush(); // and never reads
            r.callString("REPLICAOF", "127.0.0.1", Integer.toString(master.port()));
            waitFor(() -> r.callString("INFO", "replication").contains("master_link_status:up"), "the reading replica's link up");
            assertEquals(m.callString("DEBUG", "DIGEST"), r.callString("DEBUG", "DIGEST"));
            waitFor(() -> m.callString("INFO", "replication").contains("connected_slaves:1"), "the stuck replica dropped");
        }
    }

    private static String field(String info, String name) {
        for (String line : info.split("\r\n")) {
            if (line.startsWith(name + ":")) {
                return line.substring(name.length() + 1);
            }
        }
        return "";
    }
}
