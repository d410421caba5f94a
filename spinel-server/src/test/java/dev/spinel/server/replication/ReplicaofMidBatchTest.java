package dev.spinel.server.replication;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import dev.spinel.store.KeyHash;
import dev.spinel.store.Segment;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.locks.ReentrantLock;

import static dev.spinel.server.testing.Await.waitFor;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * REPLICAOF to another master while the link to the old one is applying a command of its stream: the new link asks
 * for the bytes after what the old one applied, not after the offset it had published when REPLICAOF came. The
 * interleaving is made certain: a Spinel replica R and a redis-server replica M2 of a redis-server master M1; the
 * test holds R's stripe of the key, so R's link thread, inside its batch, waits in {@code INCR counter}; R is then
 * moved to M2 (which has the INCR) and the stripe released. Spinel read the old link's offset at REPLICAOF, before
 * the INCR counted, so M2 answered +CONTINUE with the INCR again and R's counter was 2 where M2's is 1.
 */
class ReplicaofMidBatchTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(90)
    void theNewMasterContinuesAfterTheCommandTheOldLinkWasApplying() throws Exception {
        byte[] key = "counter".getBytes(StandardCharsets.US_ASCII);
        try (RedisServerProcess m1 = RedisServerProcess.start();
             RedisServerProcess m2 = RedisServerProcess.start("--replicaof", "127.0.0.1", Integer.toString(m1.port()));
             SpinelServer replica = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", dir.toString()));
             RawClient c1 = new RawClient(m1.port());
             RawClient c2 = new RawClient(m2.port());
             RawClient r = new RawClient(replica.port())) {
            waitFor(() -> c2.callString("INFO", "replication").contains("master_link_status:up"), "M2 synced with M1");
            ReplicaTesting.attach(c1, r, m1.port());
            ReentrantLock apply = (ReentrantLock) replica.replication().applyLock();
            Segment stripe = replica.engine().keyspace().db(0).segment(KeyHash.hash(key, 0, key.length));
            stripe.lock();
            try {
                assertEquals(":1\r\n", c1.callString("INCR", "counter"));
                waitFor(apply::isLocked, "R's link to apply the INCR");
                Thread.sleep(200);
                assertTrue(apply.isLocked(), "R's link waits in the INCR, inside its batch");
                waitFor(() -> c2.callString("GET", "counter").equals("$1\r\n1\r\n"), "M2 to have the INCR");
                assertEquals("+OK\r\n", r.callString("REPLICAOF", "127.0.0.1", Integer.toString(m2.port())));
            } finally {
                stripe.unlock();
            }
            waitFor(() -> r.callString("INFO", "replication").contains("master_link_status:up"), "R linked to M2");
            assertEquals(1L, c2.infoNumbers("stats").get("sync_partial_ok"), "R continued with M2");
            long end = System.currentTimeMillis() + 5_000; // the stream after the PSYNC, if any, is applied by then
            while (System.currentTimeMillis() < end && !r.callString("GET", "counter").equals(c2.callString("GET", "counter"))) {
                Thread.sleep(20);
            }
            assertEquals("$1\r\n1\r\n", r.callString("GET", "counter"), "the INCR applied once");
            waitFor(() -> c2.infoNumbers("replication").get("master_repl_offset")
                    .equals(r.infoNumbers("replication").get("master_repl_offset")), "R's offset as M2's");
        }
    }
}
