package dev.spinel.server.durability;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.Await;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A replica whose append-only log cannot be written still applies its master's stream: the master's writes are
 * obeyed, never refused with MISCONF as a client's (Redis's mustObeyClient; Redis 7.0 panics instead by default,
 * replica-ignore-disk-write-errors no, which Spinel does not do: the server never dies). Before, the replica's
 * dispatch refused them and the replica silently diverged from its master while its disk was full.
 */
class ReplicaDiskFullTest {
    @TempDir
    Path masterDir;
    @TempDir
    Path replicaDir;

    @BeforeEach
    void failingDisk() {
        FullDiskChannel.full(false);
        AofFile.opener = p -> new FullDiskChannel(AofFile.openForAppend(p));
    }

    @AfterEach
    void realDisk() {
        FullDiskChannel.full(false);
        AofFile.opener = AofFile::openForAppend;
    }

    @Test
    @Timeout(60)
    void theMastersWritesAreAppliedWhileTheReplicasLogFails() throws Exception {
        try (SpinelServer master = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", masterDir.toString())
                .with("repl-diskless-sync-delay", "0"));
             SpinelServer replica = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", replicaDir.toString())
                     .with("appendonly", "yes"));
             RawClient m = new RawClient(master.port()); RawClient r = new RawClient(replica.port())) {
            Await.waitFor(() -> r.callString("INFO", "persistence").contains("aof_rewrite_in_progress:0\r\n"), "the initial rewrite");
            r.callString("REPLICAOF", "127.0.0.1", Integer.toString(master.port()));
            Await.waitFor(() -> r.callString("INFO", "replication").contains("master_link_status:up"), "the replica in sync");
            m.callString("SET", "before", "1");
            Await.waitFor(() -> r.callString("GET", "before").equals("$1\r\n1\r\n"), "the first write applied");
            FullDiskChannel.full(true);
            m.callString("SET", "during", "2");
            Await.waitFor(() -> r.callString("INFO", "persistence").contains("aof_last_write_status:err\r\n"), "the failed write");
            for (int i = 0; i < 20; i++) {
                m.callString("INCR", "counter");
            }
            Await.waitFor(() -> r.callString("GET", "counter").equals("$2\r\n20\r\n"), "the writes after the failure applied");
            assertEquals("$1\r\n2\r\n", r.callString("GET", "during"));
        }
    }
}
