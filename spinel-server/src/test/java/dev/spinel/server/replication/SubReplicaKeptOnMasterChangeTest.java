package dev.spinel.server.replication;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static dev.spinel.server.replication.ReplicationTest.awaitInSync;
import static dev.spinel.server.replication.ReplicationTest.info;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A replica with a replica of its own keeps it through REPLICAOF to another master as Redis 7.0 does
 * (replicationSetMaster no longer disconnects the sub-replicas): here the other master cannot be reached, and back
 * on the first master the middle replica continues its history (+CONTINUE, same ID), so the sub-replica never
 * resyncs. Redis's integration/replication "Discard cache master before loading transferred RDB when full sync" reads
 * the middle node's {@code sync_partial_ok} (0) for this.
 */
class SubReplicaKeptOnMasterChangeTest {
    @Test
    void aSubReplicaStaysConnectedWhileItsMasterChangesMastersWithoutANewId() throws Exception {
        int nowhere = RedisServerProcess.freePort();
        try (SpinelServer top = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("repl-diskless-sync-delay", "0"));
             SpinelServer middle = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("repl-diskless-sync-delay", "0")
                     .with("replicaof", "127.0.0.1 " + top.port()));
             SpinelServer sub = SpinelServer.start(ServerConfig.defaults().with("port", "0")
                     .with("replicaof", "127.0.0.1 " + middle.port()));
             RawClient t = new RawClient(top.port());
             RawClient m = new RawClient(middle.port());
             RawClient s = new RawClient(sub.port())) {
            t.callString("SET", "a", "b");
            awaitInSync(t, m);
            awaitInSync(m, s);
            Map<String, String> before = info(m);
            assertEquals("1", before.get("sync_full"));
            assertEquals("0", before.get("sync_partial_ok"));

            assertEquals("+OK\r\n", m.callString("REPLICAOF", "127.0.0.1", Integer.toString(nowhere)));
            Thread.sleep(300); // a connection attempt or two to the port nobody listens on
            assertEquals("+OK\r\n", m.callString("REPLICAOF", "127.0.0.1", Integer.toString(top.port())));
            awaitInSync(t, m);
            t.callString("SET", "c", "d");
            awaitInSync(t, m);
            awaitInSync(m, s);

            Map<String, String> after = info(m);
            assertEquals("1", after.get("sync_full"), "the sub-replica resynced in full");
            assertEquals("0", after.get("sync_partial_ok"), "the sub-replica was disconnected and resynced");
            assertEquals(info(t).get("master_replid"), after.get("master_replid"));
            assertEquals(after.get("master_replid"), info(s).get("master_replid"));
            assertEquals("$1\r\nd\r\n", s.callString("GET", "c"));
        }
    }
}
