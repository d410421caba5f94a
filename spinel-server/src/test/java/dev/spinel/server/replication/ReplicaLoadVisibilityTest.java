package dev.spinel.server.replication;

import dev.spinel.persistence.RdbWriter;
import dev.spinel.persistence.ValueCodecs;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.durability.LoadDelay;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.scripting.FunctionLibraries;
import dev.spinel.store.KeyHash;
import dev.spinel.store.Keyspace;
import dev.spinel.store.Segment;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A replica's load of a received RDB shows {@code -LOADING} only when Redis's clients could see it: Redis loads on
 * its one thread and answers clients once per 2 MiB loaded, so a small file (the empty dataset a new cluster replica
 * receives) is never seen loading there. Redis's Tcl cluster helpers poll CLUSTER SLOTS (not flagged loading) on
 * every node while replicas sync and stop at the first -LOADING. The load is held on the keyspace's stripes (taken
 * here by the test) to look at it mid-way.
 */
class ReplicaLoadVisibilityTest {
    @Test
    void aSmallLoadIsNotShownLoading() throws Exception {
        assertFalse(loadingSeenWhileHeld(rdbWithValueOf(10), ServerConfig.defaults()));
    }

    @Test
    void aLoadOfTwoMegabytesOrKeyLoadDelayIsShownLoading() throws Exception {
        assertTrue(loadingSeenWhileHeld(rdbWithValueOf(ReplicaRdbLoad.EVENTS_INTERVAL_BYTES), ServerConfig.defaults()));
        assertTrue(loadingSeenWhileHeld(rdbWithValueOf(10), ServerConfig.defaults().with("key-load-delay", "1")));
    }

    /** Whether the load of {@code rdb} reports loading while its stripes are held; checks the key is loaded after. */
    private static boolean loadingSeenWhileHeld(byte[] rdb, ServerConfig config) throws Exception {
        Keyspace ks = new Keyspace(16);
        Engine engine = new Engine(config, ks, new CommandTable());
        boolean seen = false;
        ks.db(0).lockAll();
        CompletableFuture<Integer> load;
        try {
            load = CompletableFuture.supplyAsync(() -> {
                try {
                    return ReplicaRdbLoad.load(engine, FunctionLibraries.standalone(), rdb, new LoadDelay(config));
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(300);
            while (!seen && System.nanoTime() < until) {
                seen = engine.replicaRole().loading().any();
                Thread.sleep(5);
            }
        } finally {
            ks.db(0).unlockAll();
        }
        assertEquals(0, load.get(10, TimeUnit.SECONDS));
        assertFalse(engine.replicaRole().loading().any());
        assertEquals(1, ks.db(0).size());
        return seen;
    }

    private static byte[] rdbWithValueOf(int bytes) {
        Keyspace source = new Keyspace(16);
        byte[] key = "k".getBytes(StandardCharsets.US_ASCII);
        int h = KeyHash.hash(key);
        Segment seg = source.db(0).segment(h);
        seg.lock();
        try {
            seg.insert(key, h, new byte[bytes], -1);
        } finally {
            seg.unlock();
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new RdbWriter(ValueCodecs.standard()).write(source, out,
                new RdbWriter.Options(false, true, RdbWriter.Access.NONE, Map.of()));
        return out.toByteArray();
    }
}
