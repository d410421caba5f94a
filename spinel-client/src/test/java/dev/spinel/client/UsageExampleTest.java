package dev.spinel.client;

import dev.spinel.client.testing.TestServer;
import dev.spinel.protocol.RespValue;
import org.junit.jupiter.api.Test;

import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The README's usage example, run against redis-server, so the documentation stays true. */
class UsageExampleTest {
    @Test
    void readmeExampleWorks() throws Exception {
        try (TestServer server = TestServer.redis("--requirepass", "secret")) {
            String uri = "redis://:secret@127.0.0.1:" + server.port() + "/0";
            BlockingQueue<String> seen = new LinkedBlockingQueue<>();
            try (SpinelClient<String, String> client = SpinelClient.create(uri)) {
                client.async().set("greeting", "hello")
                        .thenCompose(ok -> client.async().get("greeting"))
                        .thenAccept(seen::add);
                assertEquals("hello", seen.poll(5, TimeUnit.SECONDS));

                long n = client.sync().incr("counter");
                assertEquals(1, n);

                RespValue info = client.sync().execute("CLIENT", "INFO");
                assertInstanceOf(RespValue.Verbatim.class, info); // RESP3 verbatim string

                client.async().blpop(5, "jobs").thenAccept(kv -> seen.add(kv.key() + " " + kv.value()));
                client.sync().rpush("jobs", "job1");
                assertEquals("jobs job1", seen.poll(5, TimeUnit.SECONDS));

                client.transaction(tx -> {
                    tx.incr("a");
                    return tx.lpush("log", "a+1");
                }).join();
                assertEquals("1", client.sync().get("a"));
                try (DedicatedConnection<String, String> d = client.dedicated()) {
                    d.watch("a").join();
                    d.multi().join();
                    d.async().set("a", "0");
                    boolean committed = d.exec().join();
                    assertTrue(committed);
                }

                PubSub<String, String> sub = client.pubSub();
                sub.addListener(new PubSubListener<>() {
                    @Override
                    public void message(String channel, String message) {
                        seen.add(message);
                    }
                });
                sub.subscribe("news").join();
                client.sync().publish("news", "hi");
                assertEquals("hi", seen.poll(5, TimeUnit.SECONDS));
            }
            try (SpinelClient<byte[], byte[]> bin = SpinelClient.create(uri, Codec.BYTES)) {
                assertArrayEquals("0".getBytes(), bin.sync().get("a".getBytes()));
            }
        }
    }
}
