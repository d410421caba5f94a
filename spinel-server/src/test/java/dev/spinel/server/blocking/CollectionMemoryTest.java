package dev.spinel.server.blocking;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.store.Database;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Lists and hashes keep the database's memory accounting current as they grow and shrink in place. */
class CollectionMemoryTest {
    @Test
    void memoryFollowsInPlaceGrowthAndReturnsToBaseline() throws Exception {
        try (SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0"));
             RawClient c = new RawClient(server.port())) {
            Database db = server.engine().keyspace().db(0);
            String big = "x".repeat(100);
            for (int k = 0; k < 200; k++) {
                c.call("SET", "anchor" + k, "v"); // keep every stripe non-empty, so nothing resets to 0
            }
            long baseline = db.memory();
            for (int i = 0; i < 1000; i++) {
                c.call("RPUSH", "mlist", big);
            }
            long grown = db.memory();
            assertTrue(grown - baseline >= 100_000, "grew by " + (grown - baseline));
            c.call("LSET", "mlist", "0", "small");
            c.call("LINSERT", "mlist", "BEFORE", "small", big);
            c.call("LPOP", "mlist", "10");
            c.call("LTRIM", "mlist", "1", "0");
            assertEquals(baseline, db.memory());

            List<String> args = new ArrayList<>(List.of("HSET", "mhash"));
            for (int i = 0; i < 600; i++) {
                args.add("field" + i);
                args.add(big);
            }
            c.call(args.toArray(String[]::new));
            assertTrue(db.memory() - baseline >= 60_000);
            c.call("HINCRBY", "mhash", "counter", "5");
            c.call("HINCRBYFLOAT", "mhash", "counter", "0.5");
            args.set(0, "HDEL");
            args.add("counter");
            c.call(args.toArray(String[]::new));
            assertEquals(baseline, db.memory());
        }
    }
}
