package dev.spinel.server.replication;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.spinel.server.replication.ReplicaTesting.attach;
import static dev.spinel.server.replication.ReplicaTesting.field;
import static dev.spinel.server.testing.Await.waitFor;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A chain master → intermediate replica → stopped sub-replica: the intermediate keeps the stream its sub-replica has
 * not taken in the buffer it shares with its backlog, and shows it as Redis 7.0 does, as that sub-replica's output
 * (CLIENT LIST omem) and in mem_clients_slaves. The intermediate is a redis-server, then Spinel (master and
 * sub-replica redis-servers). Before, a Spinel intermediate showed only what the sub-replica's connection queued
 * (about 1 MB of the 16 MB it held): CLIENT LIST read the share from the engine's feed, which a replica has not.
 */
class ChainedReplicaOutputTest {
    private static final long MB = 1 << 20;

    private static long offset(RawClient c) throws Exception {
        return field(c.callString("INFO", "replication"), "master_repl_offset");
    }

    /** 16 MB written to the master while the sub-replica is stopped: what the intermediate shows for it. */
    private static List<String> heldForStoppedSubReplica(RedisServerProcess master, int intermediatePort) throws Exception {
        List<String> seen = new ArrayList<>();
        try (RedisServerProcess sub = RedisServerProcess.start();
             RawClient m = new RawClient(master.port()); RawClient i = new RawClient(intermediatePort); RawClient s = new RawClient(sub.port())) {
            i.callString("CONFIG", "SET", "client-output-buffer-limit", "replica 0 0 0");
            i.callString("CONFIG", "SET", "repl-diskless-sync-delay", "0");
            attach(m, i, master.port());
            attach(i, s, intermediatePort);
            signal("STOP", sub);
            try {
                String value = "v".repeat((int) MB);
                for (int k = 0; k < 16; k++) {
                    m.callString("SET", "big" + k, value);
                }
                long end = offset(m);
                waitFor(() -> offset(i) == end, "the intermediate caught up with the master");
                String replicas = i.callString("CLIENT", "LIST", "TYPE", "replica");
                // the kernel's socket buffers take a few MB of the 16 whatever the server
                seen.add("omem over 8 MB: " + (field(replicas, "omem") > 8 * MB));
                seen.add("tot-mem over 8 MB: " + (field(replicas, "tot-mem") > 8 * MB));
                seen.add("mem_clients_slaves over 8 MB: " + (field(i.callString("INFO", "memory"), "mem_clients_slaves") > 8 * MB));
                seen.add("connected_slaves:" + field(i.callString("INFO", "replication"), "connected_slaves"));
            } finally {
                signal("CONT", sub);
            }
            long end = offset(m);
            waitFor(() -> offset(s) == end, "the sub-replica caught up");
        }
        return seen;
    }

    @Test
    void anIntermediateReplicaShowsWhatItsStoppedSubReplicaHasNotTaken() throws Exception {
        List<String> expected;
        try (RedisServerProcess master = RedisServerProcess.start("--repl-diskless-sync-delay", "0");
             RedisServerProcess intermediate = RedisServerProcess.start()) {
            expected = heldForStoppedSubReplica(master, intermediate.port());
        }
        assertEquals(List.of("omem over 8 MB: true", "tot-mem over 8 MB: true", "mem_clients_slaves over 8 MB: true",
                "connected_slaves:1"), expected);
        try (RedisServerProcess master = RedisServerProcess.start("--repl-diskless-sync-delay", "0");
             SpinelServer intermediate = SpinelServer.start(ServerConfig.defaults().with("port", "0"))) {
            assertEquals(expected, heldForStoppedSubReplica(master, intermediate.port()));
        }
    }

    private static void signal(String sig, RedisServerProcess p) throws Exception {
        new ProcessBuilder("kill", "-" + sig, Long.toString(p.pid())).inheritIO().start().waitFor();
    }
}
