package dev.spinel.server.replication;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import static dev.spinel.server.replication.ReplicationTest.info;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * REPLICAOF NO ONE while the master's stream pours in: the new history starts where the data the new master holds
 * ends (Redis's replicationUnsetMaster: second_repl_offset = master_repl_offset + 1), and nothing of the old
 * master's stream is applied or counted after that. Before the promotion waited for the link's batch, the batch
 * being applied published its offset after the shift (master_repl_offset then passed second_repl_offset with no
 * write to the new master).
 */
class PromotionUnderLoadTest {
    @Test
    void aPromotionShiftsTheHistoryAtTheOffsetOfTheDataItHolds() throws Exception {
        try (SpinelServer master = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("repl-diskless-sync-delay", "0"));
             SpinelServer replica = SpinelServer.start(ServerConfig.defaults().with("port", "0")
                     .with("replicaof", "127.0.0.1 " + master.port()));
             RawClient m = new RawClient(master.port());
             RawClient r = new RawClient(replica.port())) {
            AtomicBoolean stop = new AtomicBoolean();
            Thread writer = Thread.ofPlatform().start(() -> write(master.port(), stop));
            try {
                for (int round = 0; round < 12; round++) {
                    awaitLinkUp(r);
                    Thread.sleep(50);
                    assertEquals("+OK\r\n", r.callString("REPLICAOF", "NO", "ONE"));
                    Thread.sleep(150); // a batch published late would show by now
                    Map<String, String> i = info(r);
                    assertEquals("master", i.get("role"));
                    assertEquals(Long.parseLong(i.get("second_repl_offset")), Long.parseLong(i.get("master_repl_offset")) + 1,
                            "round " + round + ": " + i);
                    Thread.sleep(100);
                    assertEquals(i.get("master_repl_offset"), info(r).get("master_repl_offset"), "the offset moved after the promotion");
                    assertEquals("+OK\r\n", r.callString("REPLICAOF", "127.0.0.1", Integer.toString(master.port())));
                }
            } finally {
                stop.set(true);
                writer.join();
            }
        }
    }

    private static void awaitLinkUp(RawClient r) throws Exception {
        long deadline = System.nanoTime() + 20_000_000_000L;
        Map<String, String> i = info(r);
        while (!"up".equals(i.get("master_link_status")) || !"0".equals(i.get("master_sync_in_progress"))) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the link did not come up: " + i);
            }
            Thread.sleep(20);
            i = info(r);
        }
    }

    /** Pipelined SETs of 200 commands per write until {@code stop}, every reply read. */
    private static void write(int port, AtomicBoolean stop) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 200; i++) {
            String k = "key:" + i;
            sb.append("*3\r\n$3\r\nSET\r\n$").append(k.length()).append("\r\n").append(k).append("\r\n$32\r\n").append("v".repeat(32)).append("\r\n");
        }
        byte[] batch = sb.toString().getBytes(StandardCharsets.US_ASCII);
        byte[] replies = new byte[200 * 5];
        try (Socket s = new Socket("127.0.0.1", port)) {
            OutputStream out = s.getOutputStream();
            InputStream in = s.getInputStream();
            while (!stop.get()) {
                out.write(batch);
                int got = 0;
                while (got < replies.length) {
                    int n = in.read(replies, got, replies.length - got);
                    if (n < 0) {
                        throw new IllegalStateException("the master closed the connection");
                    }
                    got += n;
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
