package dev.spinel.server.replication;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A script's {@code redis.set_repl(flags)} sends its following writes to the append-only log, to the replicas,
 * to both or to neither (Redis's unit/scripting "Test selective replication of certain Redis commands from Lua"),
 * and refuses other flags with Redis's error. The same transcript against a redis-server master and replica
 * (appendonly yes) and against a Spinel pair: the replica's keys, the master's keys after DEBUG LOADAOF (what its
 * log holds) and the replies, compared. Before, set_repl did nothing: every write reached both.
 */
class ScriptSetReplDiffTest {
    private static final String SELECTIVE = "redis.call('set','a','1'); redis.set_repl(redis.REPL_NONE); "
            + "redis.call('set','b','2'); redis.set_repl(redis.REPL_AOF); redis.call('set','c','3'); "
            + "redis.set_repl(redis.REPL_ALL); redis.call('set','d','4'); redis.set_repl(redis.REPL_REPLICA); "
            + "redis.call('set','e','5'); redis.set_repl(redis.REPL_SLAVE); redis.call('set','f','6')";
    /** Only the replicas get writes: one each, wrapped or not as Redis's count of writes propagated anywhere says. */
    private static final String REPLICA_ONLY = "redis.set_repl(redis.REPL_REPLICA); redis.call('set','g','7'); "
            + "redis.set_repl(redis.REPL_NONE); redis.call('incr','h'); redis.call('incr','h')";

    @Test
    @Timeout(120)
    void writesGoWhereSetReplSends(@TempDir Path masterDir, @TempDir Path replicaDir) throws Exception {
        List<String> expected;
        try (RedisServerProcess master = RedisServerProcess.start("--appendonly", "yes", "--repl-diskless-sync-delay", "0");
             RedisServerProcess replica = RedisServerProcess.start();
             RawClient m = new RawClient(master.port()); RawClient r = new RawClient(replica.port())) {
            expected = transcript(m, r, master.port());
        }
        try (SpinelServer master = SpinelServer.start(ServerConfig.defaults().with("port", "0")
                     .with("dir", masterDir.toString()).with("appendonly", "yes").with("repl-diskless-sync-delay", "0"));
             SpinelServer replica = SpinelServer.start(ServerConfig.defaults().with("port", "0")
                     .with("dir", replicaDir.toString()));
             RawClient m = new RawClient(master.port()); RawClient r = new RawClient(replica.port())) {
            assertEquals(expected, transcript(m, r, master.port()));
        }
    }

    private static List<String> transcript(RawClient m, RawClient r, int masterPort) throws Exception {
        List<String> out = new ArrayList<>();
        r.callString("REPLICAOF", "127.0.0.1", Integer.toString(masterPort));
        ReplicationTest.awaitInSync(m, r);
        out.add(m.callString("EVAL", "redis.set_repl(12345)", "0"));
        out.add(m.callString("EVAL", "redis.set_repl(-1)", "0"));
        out.add(m.callString("EVAL", "redis.set_repl()", "0"));
        out.add(m.callString("EVAL", "redis.set_repl(1, 2)", "0"));
        out.add(m.callString("EVAL", "return redis.set_repl('3')", "0"));
        out.add(m.callString("EVAL", SELECTIVE, "0"));
        out.add(m.callString("EVAL", REPLICA_ONLY, "0"));
        out.add(m.callString("SET", "marker", "x")); // after the scripts: once the replica has it, it has theirs
        long deadline = System.nanoTime() + 20_000_000_000L;
        while (!r.callString("GET", "marker").contains("x") && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        out.add("replica " + r.callString("MGET", "a", "b", "c", "d", "e", "f", "g", "h"));
        out.add("master " + m.callString("MGET", "a", "b", "c", "d", "e", "f", "g", "h"));
        out.add(m.callString("DEBUG", "LOADAOF"));
        out.add("master's log " + m.callString("MGET", "a", "b", "c", "d", "e", "f", "g", "h"));
        return out;
    }
}
