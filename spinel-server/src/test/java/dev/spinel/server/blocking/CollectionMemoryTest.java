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

/** Lists, hashes and streams keep the database's memory accounting current as they grow and shrink in place. */
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

    @Test
    void streamsAndTheirGroupsAreAccounted() throws Exception {
        try (SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0"));
             RawClient c = new RawClient(server.port())) {
            Database db = server.engine().keyspace().db(0);
            for (int k = 0; k < 200; k++) {
                c.call("SET", "anchor" + k, "v");
            }
            long baseline = db.memory();
            String big = "y".repeat(100);
            for (int i = 1; i <= 1000; i++) {
                c.call("XADD", "mstream", i + "-1", "f", big, "n", Integer.toString(i));
            }
            long grown = db.memory();
            assertTrue(grown - baseline >= 100_000, "grew by " + (grown - baseline));
            c.call("XGROUP", "CREATE", "mstream", "g", "0");
            c.call("XREADGROUP", "GROUP", "g", "alice", "COUNT", "300", "STREAMS", "mstream", ">");
            assertTrue(db.memory() > grown, "pending entries are accounted");
            c.call("XACK", "mstream", "g", "1-1", "2-1", "3-1");
            c.call("XCLAIM", "mstream", "g", "bob", "0", "10-1", "11-1");
            c.call("XAUTOCLAIM", "mstream", "g", "carol", "0", "0", "COUNT", "50");
            c.call("XDEL", "mstream", "500-1", "501-1");
            c.call("XTRIM", "mstream", "MAXLEN", "~", "200");
            c.call("XADD", "mstream", "MAXLEN", "10", "2000-1", "f", "v");
            c.call("XGROUP", "DELCONSUMER", "mstream", "g", "bob");
            c.call("XGROUP", "CREATECONSUMER", "mstream", "g", "dave");
            c.call("XGROUP", "DESTROY", "mstream", "g");
            c.call("XTRIM", "mstream", "MAXLEN", "0");
            assertTrue(db.memory() - baseline < 2_000, "an empty stream is small: " + (db.memory() - baseline));
            c.call("DEL", "mstream");
            assertEquals(baseline, db.memory());
        }
    }
}
