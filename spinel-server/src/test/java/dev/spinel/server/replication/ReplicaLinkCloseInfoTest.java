package dev.spinel.server.replication;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.concurrent.locks.ReentrantLock;

import static dev.spinel.server.testing.Await.waitFor;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A replica asked for INFO and ROLE after its master closed the link reports the link down, as a redis-server
 * replica does (its one event loop handles the close, which arrived first, before the client's INFO). replication.tcl's
 * "Diskless load swapdb (async_loading): new database is exposed after swapping" (a Spinel replica of a redis-server
 * master) kills the replica inside MULTI/EXEC and at once waits for {@code master_link_status:up}: Spinel's link
 * thread, not yet run on the loaded machine, still said up, and the unit read the old data. The delay is made certain
 * here: the test holds the link's apply lock, so the link's thread waits with a write of the master in hand and
 * cannot read the close behind it.
 */
class ReplicaLinkCloseInfoTest {
    @TempDir
    Path dir;

    @Test
    @Timeout(60)
    void theLinkIsDownOnceTheMastersCloseArrived() throws Exception {
        try (RedisServerProcess master = RedisServerProcess.start();
             SpinelServer replica = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", dir.toString()));
             RawClient m = new RawClient(master.port());
             RawClient r = new RawClient(replica.port())) {
            ReplicaTesting.attach(m, r, master.port());
            ReentrantLock apply = (ReentrantLock) replica.replication().applyLock();
            apply.lock();
            try {
                assertEquals("+OK\r\n", m.callString("SET", "k", "v"));
                waitFor(apply::hasQueuedThreads, "the link's thread to wait with the SET");
                assertEquals(":1\r\n", m.callString("CLIENT", "KILL", "TYPE", "replica"));
                String info = r.callString("INFO", "replication");
                assertTrue(info.contains("master_link_status:down\r\n"), info);
                assertTrue(info.contains("master_last_io_seconds_ago:-1\r\n"), info);
                assertTrue(info.contains("master_link_down_since_seconds:0\r\n"), info);
                assertTrue(r.callString("ROLE").contains("$7\r\nconnect\r\n"), "ROLE's state");
            } finally {
                apply.unlock();
            }
            waitFor(() -> r.callString("INFO", "replication").contains("master_link_status:up"), "the link up again");
            assertEquals("$1\r\nv\r\n", r.callString("GET", "k"));
        }
    }
}
