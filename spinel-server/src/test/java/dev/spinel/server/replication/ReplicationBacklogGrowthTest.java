package dev.spinel.server.replication;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static dev.spinel.server.testing.Await.waitFor;

/**
 * A burst written within one command (an EXEC of 160 kB) with repl-backlog-size at its 16 kB minimum: Redis 7.0's
 * shared replication buffer keeps the bytes for the attached replica, which is not dropped (no second full sync);
 * Spinel's backlog grows past its size for it, then comes back. A redis-server master and a Spinel master, each with
 * a redis-server replica: sync counts, the backlog size INFO shows after the burst, and the replica's dataset compared.
 */
class ReplicationBacklogGrowthTest {
    private static List<String> burst(int masterPort, RedisServerProcess replica) throws Exception {
        List<String> seen = new ArrayList<>();
        try (RawClient m = new RawClient(masterPort); RawClient r = new RawClient(replica.port())) {
            r.callString("REPLICAOF", "127.0.0.1", Integer.toString(masterPort));
            waitFor(() -> r.callString("INFO", "replication").contains("master_link_status:up"), "link up");
            m.callString("CONFIG", "SET", "repl-backlog-size", "16384");
            m.callString("MULTI");
            for (int i = 0; i < 10; i++) {
                m.callString("SET", "key" + i, "A".repeat(16384));
            }
            m.callString("EXEC");
            m.callString("SET", "last", "1");
            waitFor(() -> r.callString("GET", "last").equals("$1\r\n1\r\n"), "the replica has the burst");
            Thread.sleep(300);
            String stats = m.callString("INFO", "stats");
            seen.add(field(stats, "sync_full"));
            seen.add(field(stats, "sync_partial_ok"));
            seen.add(field(m.callString("INFO", "replication"), "repl_backlog_size"));
            seen.add(field(m.callString("INFO", "replication"), "connected_slaves"));
            seen.add(m.callString("DEBUG", "DIGEST"));
            assertEquals(seen.getLast(), r.callString("DEBUG", "DIGEST"));
        }
        return seen;
    }

    @Test
    void aBurstLargerThanTheBacklogKeepsTheReplica() throws Exception {
        List<String> expected;
        try (RedisServerProcess master = RedisServerProcess.start("--enable-debug-command", "yes", "--repl-diskless-sync-delay", "0");
             RedisServerProcess replica = RedisServerProcess.start("--enable-debug-command", "yes")) {
            expected = burst(master.port(), replica);
        }
        assertEquals("1", expected.getFirst());
        try (SpinelServer master = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("enable-debug-command", "yes")
                .with("repl-diskless-sync-delay", "0"));
             RedisServerProcess replica = RedisServerProcess.start("--enable-debug-command", "yes")) {
            assertEquals(expected, burst(master.port(), replica));
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
