package dev.spinel.client.internal;

import dev.spinel.client.ClientOptions;
import dev.spinel.client.RedisUri;
import dev.spinel.protocol.RespValue;
import dev.spinel.server.SpinelServer;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Commands submitted faster than the loop writes leave in shared writes, not one write each. */
class CoalescingTest {
    @Test
    void manyCallersShareFewWrites() throws Exception {
        Transport transport = new Transport(1);
        try (SpinelServer server = SpinelServer.startEphemeral()) {
            Connection c = Connection.open(transport, RedisUri.parse("redis://127.0.0.1:" + server.port()), ClientOptions.defaults(), null)
                    .get(10, TimeUnit.SECONDS);
            int threads = 8;
            int perThread = 5000;
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> ts = new ArrayList<>();
            List<List<Command<RespValue>>> sent = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                List<Command<RespValue>> mine = new ArrayList<>();
                sent.add(mine);
                ts.add(Thread.ofPlatform().start(() -> {
                    try {
                        go.await();
                    } catch (InterruptedException e) {
                        return;
                    }
                    for (int i = 0; i < perThread; i++) {
                        mine.add(c.submit(new Command<>(Replies.RAW, Names.PING)));
                    }
                }));
            }
            go.countDown();
            for (Thread t : ts) {
                t.join();
            }
            for (List<Command<RespValue>> mine : sent) {
                CompletableFuture.allOf(mine.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
                for (Command<RespValue> cmd : mine) {
                    assertEquals(RespDecoder.PONG, cmd.join());
                }
            }
            long flushes = c.flushes();
            System.out.println(threads * perThread + " commands in " + flushes + " writes");
            assertTrue(flushes * 10 <= threads * perThread, "at least 10 commands per write on average, got " + flushes + " writes");
            assertEquals(0, c.outstanding());
            c.close().get(5, TimeUnit.SECONDS);
        } finally {
            transport.shutdown();
        }
    }
}
