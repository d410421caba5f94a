package dev.spinel.server.replication;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;

import static dev.spinel.server.testing.Await.waitFor;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A replica under CLIENT PAUSE WRITE still reads its master's stream (slave_read_repl_offset reaches the master's
 * offset) but applies nothing of it (slave_repl_offset and the data stay) until the pause ends, as a redis-server
 * replica (Redis's unit/pause "Test when replica paused, offset would not grow"). Before, Spinel's replica stopped
 * reading too, and both offsets stayed.
 */
class ReplicaPausedReadOffsetDiffTest {

    @Test
    @Timeout(60)
    void aPausedReplicaReadsButDoesNotApply() throws Exception {
        try (RedisServerProcess master = RedisServerProcess.start("--repl-diskless-sync-delay", "0");
             RawClient m = new RawClient(master.port())) {
            List<String> expected;
            try (RedisServerProcess replica = RedisServerProcess.start(); RawClient r = new RawClient(replica.port())) {
                expected = transcript(m, r, master.port());
            }
            try (SpinelServer replica = SpinelServer.start(ServerConfig.defaults().with("port", "0"));
                 RawClient r = new RawClient(replica.port())) {
                assertEquals(expected, transcript(m, r, master.port()));
            }
        }
    }

    private static List<String> transcript(RawClient m, RawClient r, int masterPort) throws Exception {
        List<String> out = new ArrayList<>();
        m.callString("DEL", "foo2");
        r.callString("REPLICAOF", "127.0.0.1", Integer.toString(masterPort));
        ReplicationTest.awaitInSync(m, r);
        out.add(m.callString("SET", "foo", "bar"));
        waitFor(() -> field(r, "slave_repl_offset") == field(m, "master_repl_offset"), "the replica in step");
        long before = field(m, "master_repl_offset");
        out.add(r.callString("CLIENT", "PAUSE", "100000", "WRITE"));
        out.add(m.callString("SET", "foo2", "bar2"));
        waitFor(() -> field(r, "slave_read_repl_offset") == field(m, "master_repl_offset"), "the write read");
        out.add("applied while paused: " + (field(r, "slave_repl_offset") != before));
        out.add(r.callString("GET", "foo2"));
        out.add(r.callString("CLIENT", "UNPAUSE"));
        waitFor(() -> field(r, "slave_repl_offset") == field(m, "master_repl_offset"), "the write applied");
        out.add(r.callString("GET", "foo2"));
        out.add(r.callString("REPLICAOF", "NO", "ONE"));
        return out;
    }

    private static long field(RawClient c, String name) throws Exception {
        for (String line : c.callString("INFO", "replication").split("\r\n")) {
            if (line.startsWith(name + ":")) {
                return Long.parseLong(line.substring(name.length() + 1));
            }
        }
        return Long.MIN_VALUE;
    }
}
