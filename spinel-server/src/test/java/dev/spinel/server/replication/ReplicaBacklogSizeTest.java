package dev.spinel.server.replication;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import static dev.spinel.server.testing.Await.waitFor;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A replica with no replicas of its own keeps its backlog at repl-backlog-size after a write larger than it (Redis's
 * pendingquerybuf unit: after a 32 MB SET the replica's used_memory must stay within 10 MB of the master's). The
 * backlog grows past its size only to keep bytes an attached replica has not copied yet.
 */
class ReplicaBacklogSizeTest {
    @Test
    @Timeout(60)
    void aWriteLargerThanTheBacklogDoesNotGrowAReplicasBacklog() throws Exception {
        ServerConfig config = ServerConfig.defaults().with("port", "0").with("repl-diskless-sync-delay", "0");
        try (SpinelServer master = SpinelServer.start(config); SpinelServer replica = SpinelServer.start(config);
             RawClient m = new RawClient(master.port()); RawClient r = new RawClient(replica.port())) {
            r.callString("REPLICAOF", "127.0.0.1", Integer.toString(master.port()));
            waitFor(() -> r.callString("INFO", "replication").contains("master_link_status:up"), "link up");
            byte[] big = new byte[4 * 1024 * 1024];
            Arrays.fill(big, (byte) 'x');
            assertEquals("+OK\r\n", new String(m.call(List.of(bytes("SET"), bytes("key"), big)), StandardCharsets.US_ASCII));
            m.callString("SET", "last", "1");
            waitFor(() -> r.callString("GET", "last").equals("$1\r\n1\r\n"), "the replica has the write");
            assertEquals("1048576", field(r.callString("INFO", "replication"), "repl_backlog_size"));
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
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
