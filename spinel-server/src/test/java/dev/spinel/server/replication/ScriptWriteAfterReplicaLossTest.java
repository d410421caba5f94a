package dev.spinel.server.replication;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static dev.spinel.server.replication.ReplicationTest.awaitInSync;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A script that has written is not refused NOREPLICAS half-way (Redis 7.0's SCRIPT_WRITE_DIRTY: the server's state
 * stops only a script's first write): with min-replicas-to-write 1, a script writes, waits until its master has
 * lost its only replica, and writes again; the second write succeeds, as Redis's unit/scripting "not enough good
 * replicas state change during long script" expects (Spinel answered NOREPLICAS there).
 */
class ScriptWriteAfterReplicaLossTest {
    private static final String SCRIPT = """
            redis.call('set','x',"script value")
            while true do
                local info = redis.call('info','replication')
                if (string.match(info, "connected_slaves:0")) then
                    redis.call('set','x',info)
                    break
                end
            end
            return 1""";

    @Test
    @Timeout(60)
    void aScriptThatWroteKeepsWritingWhenTheReplicasGo() throws Exception {
        try (SpinelServer master = SpinelServer.start(ServerConfig.defaults().with("port", "0")
                .with("repl-diskless-sync-delay", "0").with("busy-reply-threshold", "100"));
             RawClient m = new RawClient(master.port());
             RawClient runner = new RawClient(master.port())) {
            m.callString("CONFIG", "SET", "min-replicas-to-write", "1");
            SpinelServer replica = SpinelServer.start(ServerConfig.defaults().with("port", "0")
                    .with("replicaof", "127.0.0.1 " + master.port()));
            try (RawClient rc = new RawClient(replica.port())) {
                awaitInSync(m, rc);
            }
            runner.send(List.of("EVAL".getBytes(), SCRIPT.getBytes(StandardCharsets.UTF_8), "1".getBytes(), "x".getBytes()));
            String ping;
            long deadline = System.nanoTime() + 10_000_000_000L;
            do { // the script runs (BUSY), having written once
                Thread.sleep(20);
                ping = m.callString("PING");
            } while (!ping.startsWith("-BUSY") && System.nanoTime() < deadline);
            assertTrue(ping.startsWith("-BUSY"), ping);
            replica.close(); // the master loses its only replica while the script runs
            runner.setReadTimeout(30_000);
            assertEquals(":1\r\n", new String(runner.readReply(), StandardCharsets.UTF_8));
            String x = m.callString("GET", "x");
            assertTrue(x.contains("connected_slaves:0"), x);
        }
    }
}
