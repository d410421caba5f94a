package dev.spinel.server.commands;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * Multi-key commands are atomic: a client checking both names of a key that another client keeps
 * renaming (or moving between databases) always sees exactly one of them.
 */
class MultiKeyAtomicityTest {

    @Test
    void renameIsAtomicForExists() throws Exception {
        try (SpinelServer server = SpinelServer.startEphemeral();
             RawClient mover = new RawClient(server.port());
             RawClient checker = new RawClient(server.port())) {
            mover.call("SET", "left", "v");
            AtomicBoolean stop = new AtomicBoolean();
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread t = new Thread(() -> {
                try {
                    while (!stop.get()) {
                        mover.call("RENAME", "left", "right");
                        mover.call("RENAME", "right", "left");
                    }
                } catch (Throwable e) {
                    failure.set(e);
                }
            }, "renamer");
            t.start();
            try {
                for (int i = 0; i < 5000; i++) {
                    assertEquals(":1\r\n", checker.callString("EXISTS", "left", "right"));
                }
            } finally {
                stop.set(true);
                t.join();
            }
            assertNull(failure.get());
        }
    }

    @Test
    void racingMovesNeitherLoseNorDuplicateTheKey() throws Exception {
        try (SpinelServer server = SpinelServer.startEphemeral();
             RawClient setup = new RawClient(server.port())) {
            setup.call("SET", "k", "v");
            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread[] movers = new Thread[4];
            for (int m = 0; m < movers.length; m++) {
                String from = Integer.toString(m % 2);
                String to = Integer.toString(1 - m % 2);
                movers[m] = new Thread(() -> {
                    try (RawClient c = new RawClient(server.port())) {
                        c.call("SELECT", from);
                        for (int i = 0; i < 3000; i++) {
                            c.call("MOVE", "k", to);
                            c.call("COPY", "k", "k2", "DB", "2", "REPLACE");
                        }
                    } catch (Throwable e) {
                        failure.set(e);
                    }
                }, "mover-" + m);
                movers[m].start();
            }
            for (Thread t : movers) {
                t.join();
            }
            assertNull(failure.get());
            assertEquals(1, count(setup, "0") + count(setup, "1"), "the key is in exactly one database");
        }
    }

    private static long count(RawClient c, String db) throws Exception {
        c.call("SELECT", db);
        String r = c.callString("EXISTS", "k");
        return Long.parseLong(r.substring(1, r.length() - 2));
    }
}
