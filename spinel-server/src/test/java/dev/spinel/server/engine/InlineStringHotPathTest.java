package dev.spinel.server.engine;

import dev.spinel.protocol.Args;
import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.engine.ports.InternalConnection;
import dev.spinel.server.testing.Allocations;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The GET/SET path of a string held in its entry (docs/memory.md, step 3), through the engine without the
 * network: a GET copies the value from the entry's fields into the reply and allocates nothing; an overwriting
 * SET allocates the new entry (72 bytes for a 14-byte key and a 32-byte value: no value reference) and no value array.
 */
class InlineStringHotPathTest {
    @Test
    void getAllocatesNothingAndSetOnlyTheEntry() {
        try (SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("grpc-port", "0"))) {
            Engine engine = server.engine();
            Session session = engine.open(new InternalConnection("inline:0"));
            String value = "v".repeat(31) + "!";
            Args set = Args.of("SET", "memtier-123456", value);
            Args get = Args.of("GET", "memtier-123456");
            engine.execute(session, set);
            session.out().clear();
            engine.execute(session, get);
            assertEquals("$32\r\n" + value + "\r\n", new String(session.out().array(), 0, session.out().size(), StandardCharsets.US_ASCII));
            for (int round = 0; round < 3; round++) { // warm-up: let the JIT compile both paths
                Allocations.perCall(engine, session, get, 50_000);
                Allocations.perCall(engine, session, set, 50_000);
            }
            long perGet = Allocations.perCall(engine, session, get, 100_000);
            long perSet = Allocations.perCall(engine, session, set, 100_000);
            assertTrue(perGet < 8, perGet + " bytes allocated per GET");
            assertTrue(perSet >= 72 && perSet < 80, perSet + " bytes allocated per SET (the 72-byte entry; 80 with a value reference)");
        }
    }

    /**
     * INCR of a counter held in its entry parses the digits in place and packs the new ones straight into the new
     * entry (a 48-byte {@code S1} here): nothing else, where it also allocated a copy of the old digits and an array
     * of the new ones (docs/memory.md, round 8).
     */
    @Test
    void incrAllocatesOnlyTheNewEntry() {
        try (SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("grpc-port", "0"))) {
            Engine engine = server.engine();
            Session session = engine.open(new InternalConnection("inline:1"));
            engine.execute(session, Args.of("SET", "counter:123456", "1000000"));
            Args incr = Args.of("INCR", "counter:123456");
            for (int round = 0; round < 3; round++) {
                Allocations.perCall(engine, session, incr, 50_000);
            }
            long perIncr = Allocations.perCall(engine, session, incr, 100_000);
            assertTrue(perIncr >= 40 && perIncr < 56, perIncr + " bytes allocated per INCR (the 48-byte entry)");
            session.out().clear();
            engine.execute(session, Args.of("GET", "counter:123456"));
            assertEquals("$7\r\n1250000\r\n", new String(session.out().array(), 0, session.out().size(), StandardCharsets.US_ASCII));
        }
    }
}
