package dev.spinel.server.commands;

import dev.spinel.protocol.Args;
import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.engine.Session;
import dev.spinel.server.engine.ports.InternalConnection;
import dev.spinel.server.testing.Allocations;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * OBJECT ENCODING and REFCOUNT, SORT, BITOP and LCS read a string grown in place (APPEND, SETRANGE...: an array with
 * spare room) in place under the lock, as BITCOUNT and BITPOS do, instead of through {@code Entry.value()}'s trimmed
 * copy of the whole string (docs/memory.md, round 8). Counted as bytes the thread allocates per command, through
 * the engine without the network: with the copy each would allocate at least the string's megabyte. Their answers
 * against redis-server: {@code GrowingStringDiffTest}.
 */
class GrownStringReadsInPlaceTest {
    private static final int MB = 1 << 20;

    private static String run(Engine engine, Session session, String... args) {
        session.out().clear();
        engine.execute(session, Args.of(args));
        return new String(session.out().array(), 0, session.out().size(), StandardCharsets.ISO_8859_1);
    }

    /** Bytes allocated per call of {@code args}, after a warm-up. */
    private static long perCall(Engine engine, Session session, int n, String... args) {
        Args a = Args.of(args);
        Allocations.perCall(engine, session, a, n);
        return Allocations.perCall(engine, session, a, n);
    }

    @Test
    void readsOfAGrownStringDoNotCopyIt() {
        try (SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("grpc-port", "0"))) {
            Engine engine = server.engine();
            Session s = engine.open(new InternalConnection("inplace:0"));
            assertEquals(":" + MB + "\r\n", run(engine, s, "SETRANGE", "big", Integer.toString(MB - 1), "z"));
            assertEquals(":" + (MB + 1) + "\r\n", run(engine, s, "APPEND", "big", "!")); // now with spare room
            assertEquals("$3\r\nraw\r\n", run(engine, s, "OBJECT", "ENCODING", "big"));
            assertEquals(":1\r\n", run(engine, s, "OBJECT", "REFCOUNT", "big"));
            assertTrue(run(engine, s, "SORT", "big").startsWith("-WRONGTYPE"));

            long encoding = perCall(engine, s, 200, "OBJECT", "ENCODING", "big");
            long refcount = perCall(engine, s, 200, "OBJECT", "REFCOUNT", "big");
            long sort = perCall(engine, s, 200, "SORT", "big");
            assertTrue(encoding < 1024, encoding + " bytes allocated per OBJECT ENCODING of a 1 MB string");
            assertTrue(refcount < 1024, refcount + " bytes allocated per OBJECT REFCOUNT of a 1 MB string");
            assertTrue(sort < 1024, sort + " bytes allocated per SORT (WRONGTYPE) of a 1 MB string");

            // BITOP allocates its result (1 MB + 1) and nothing of the size of its sources
            assertEquals(":" + (MB + 1) + "\r\n", run(engine, s, "BITOP", "NOT", "dst", "big"));
            assertEquals("$2\r\n\u0085\u00de\r\n", run(engine, s, "GETRANGE", "dst", Integer.toString(MB - 1), "-1"));
            assertEquals(":" + (MB + 1) + "\r\n", run(engine, s, "BITOP", "XOR", "dst", "big", "big", "nokey"));
            assertEquals(":0\r\n", run(engine, s, "BITCOUNT", "dst"));
            long bitop = perCall(engine, s, 20, "BITOP", "AND", "dst", "big", "big");
            assertTrue(bitop < MB + 64 * 1024, bitop + " bytes allocated per BITOP of two 1 MB strings");

            // SORT BY and GET patterns: the weights of a 1 MB grown string each
            run(engine, s, "RPUSH", "list", "a", "b");
            run(engine, s, "SETRANGE", "w_a", Integer.toString(MB), "a");
            run(engine, s, "APPEND", "w_a", "b");
            run(engine, s, "SET", "w_b", "b");
            run(engine, s, "APPEND", "w_b", "a"); // "ba", grown: its array is longer, zero padded
            assertEquals("*2\r\n$1\r\na\r\n$1\r\nb\r\n", run(engine, s, "SORT", "list", "BY", "w_*", "ALPHA"));
            assertEquals("*2\r\n$1\r\nb\r\n$1\r\na\r\n", run(engine, s, "SORT", "list", "BY", "w_*", "ALPHA", "DESC"));
            assertEquals("*1\r\n$2\r\nba\r\n", run(engine, s, "SORT", "list", "BY", "nosort", "GET", "w_*", "LIMIT", "1", "1"));
            long sortBy = perCall(engine, s, 200, "SORT", "list", "BY", "w_*", "ALPHA");
            assertTrue(sortBy < 16 * 1024, sortBy + " bytes allocated per SORT BY a 1 MB weight");

            // LCS: its table ((m + 1) x (n + 1) ints) and nothing of the size of the strings
            run(engine, s, "SETRANGE", "x", Integer.toString(128 * 1024), "ab");
            run(engine, s, "APPEND", "x", "cd");
            run(engine, s, "SET", "y", "zbd");
            assertEquals("$2\r\nbd\r\n", run(engine, s, "LCS", "x", "y"));
            long table = (128 * 1024 + 4 + 1L) * (3 + 1) * Integer.BYTES;
            long lcs = perCall(engine, s, 20, "LCS", "x", "y", "LEN");
            assertTrue(lcs < table + 16 * 1024, lcs + " bytes allocated per LCS of a 128 KB string, table " + table);
        }
    }
}
