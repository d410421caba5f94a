package dev.spinel.server.replication;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;

import java.util.List;

import static dev.spinel.server.replication.ReplicationTest.awaitInSync;
import static dev.spinel.server.replication.ReplicationTest.info;
import static dev.spinel.server.testing.Await.waitFor;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** CONFIG RESETSTAT zeroes a master's sync_full / sync_partial_ok / sync_partial_err, as Redis's resetServerStats. */
class ReplicationStatsResetTest {
    @Test
    void configResetstatZeroesTheSyncCounters() throws Exception {
        try (RedisServerProcess redis = RedisServerProcess.start("--repl-diskless-sync-delay", "0");
             SpinelServer spinel = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("repl-diskless-sync-delay", "0"));
             RedisServerProcess redisReplica = RedisServerProcess.start("--replicaof", "127.0.0.1", Integer.toString(redis.port()));
             RedisServerProcess spinelReplica = RedisServerProcess.start("--replicaof", "127.0.0.1", Integer.toString(spinel.port()));
             RawClient r = new RawClient(redis.port());
             RawClient s = new RawClient(spinel.port());
             RawClient rr = new RawClient(redisReplica.port());
             RawClient sr = new RawClient(spinelReplica.port())) {
            awaitInSync(r, rr);
            awaitInSync(s, sr);
            for (RawClient c : List.of(r, s)) {
                assertEquals("1", info(c).get("sync_full"));
                c.callString("CLIENT", "KILL", "TYPE", "replica");
            }
            for (RawClient c : List.of(r, s)) { // the replica may still show its link up just after the kill: wait for the resync
                waitFor(() -> "1".equals(info(c).get("sync_partial_ok")), "the partial resync after the kill");
            }
            awaitInSync(r, rr);
            awaitInSync(s, sr);
            for (RawClient c : List.of(r, s)) {
                assertEquals("1", info(c).get("sync_full")); // partial, not a second full sync
                assertEquals("1", info(c).get("sync_partial_ok"));
                assertEquals("+OK\r\n", c.callString("CONFIG", "RESETSTAT"));
                assertEquals("0", info(c).get("sync_full"));
                assertEquals("0", info(c).get("sync_partial_ok"));
                assertEquals("0", info(c).get("sync_partial_err"));
            }
        }
    }
}
