package dev.spinel.server.commands;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Atomicity of the string commands under concurrent clients on several event loops, which a
 * differential script (one client at a time) cannot show: no lost counter updates, and MSET seen
 * by MGET all-or-nothing even when its keys live in different stripes.
 */
class StringAtomicityTest {
    private static SpinelServer server;

    @BeforeAll
    static void start() {
        server = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("event-loop-threads", "4"));
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void concurrentCountersLoseNothing() throws Exception {
        int clients = 6;
        int perClient = 2000;
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                done.add(pool.submit(() -> {
                    try (RawClient rc = new RawClient(server.port())) {
                        for (int i = 0; i < perClient; i++) {
                            rc.call("INCR", "counter");
                            rc.call("INCRBY", "counter", "2");
                            rc.call("DECR", "counter");
                            rc.call("INCRBYFLOAT", "float", "0.5");
                            rc.call("APPEND", "log", "x");
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        try (RawClient rc = new RawClient(server.port())) {
            long total = (long) clients * perClient;
            assertEquals("$" + Long.toString(2 * total).length() + "\r\n" + 2 * total + "\r\n", rc.callString("GET", "counter"));
            assertEquals("$" + Long.toString(total / 2).length() + "\r\n" + total / 2 + "\r\n", rc.callString("GET", "float"));
            assertEquals(":" + total + "\r\n", rc.callString("STRLEN", "log"));
        }
    }

    @Test
    void msetIsSeenAllOrNothing() throws Exception {
        // Keys chosen to spread over many stripes; a reader must never see a mix of two MSETs.
        String[] keys = new String[16];
        for (int i = 0; i < keys.length; i++) {
            keys[i] = "mkey:" + i * 7919;
        }
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(3);
        try {
            Future<?> writer = pool.submit(() -> {
                try (RawClient rc = new RawClient(server.port())) {
                    for (int round = 0; round < 3000; round++) {
                        List<String> args = new ArrayList<>(List.of("MSET"));
                        for (String k : keys) {
                            args.add(k);
                            args.add("v" + round);
                        }
                        rc.call(args.stream().map(String::getBytes).toList());
                    }
                } finally {
                    stop.set(true);
                }
                return null;
            });
            List<Future<Integer>> readers = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                readers.add(pool.submit(() -> {
                    int checked = 0;
                    try (RawClient rc = new RawClient(server.port())) {
                        List<String> args = new ArrayList<>(List.of("MGET"));
                        args.addAll(List.of(keys));
                        while (!stop.get()) {
                            String reply = rc.callString(args.toArray(new String[0]));
                            String[] lines = reply.split("\r\n");
                            String first = lines[1].equals("$-1") ? "$-1" : lines[2];
                            for (int i = 1; i < lines.length; ) {
                                if (lines[i].equals("$-1")) {
                                    assertEquals("$-1", first, reply);
                                    i++;
                                } else {
                                    assertEquals(first, lines[i + 1], reply);
                                    i += 2;
                                }
                            }
                            checked++;
                        }
                    }
                    return checked;
                }));
            }
            writer.get(60, TimeUnit.SECONDS);
            for (Future<Integer> r : readers) {
                assertTrue(r.get(60, TimeUnit.SECONDS) > 0);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
