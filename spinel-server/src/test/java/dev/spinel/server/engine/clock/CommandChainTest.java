package dev.spinel.server.engine.clock;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Commands of a batch are timed with one clock read each; the time between batches is no command's. */
class CommandChainTest {
    @Test
    void anOpenChainStartsEachCommandAtThePreviousEnd() {
        CommandChain chain = new CommandChain();
        chain.open();
        long first = chain.start();
        chain.end(first + 5_000);
        assertEquals(first + 5_000, chain.start());
        chain.end(first + 9_000);
        assertEquals(first + 9_000, chain.start());
        assertTrue(chain.start() >= first, "a start already taken is not handed out twice: the clock is read");
    }

    @Test
    void aRecentReadingIsTheOneHeldWithinABatchElseTheClock() {
        CommandChain chain = new CommandChain();
        chain.open();
        long before = System.nanoTime();
        assertTrue(chain.recentNanos() >= before, "a batch's first command: the clock");
        chain.end(42);
        assertEquals(42, chain.recentNanos()); // the previous command's end
        assertEquals(42, chain.runStart());
        assertEquals(42, chain.recentNanos()); // a run's start, for the commands joining it
        chain.close();
        assertTrue(chain.recentNanos() >= before, "between batches: the clock");
    }

    @Test
    void aClosedChainReadsTheClock() throws Exception {
        CommandChain chain = new CommandChain();
        chain.end(42); // not open: remembered nowhere
        assertTrue(chain.start() != 42);
        chain.open();
        chain.end(42);
        chain.close();
        assertTrue(chain.start() != 42);
    }

    @Test
    void idleTimeBetweenReadsIsNotCountedInTheNextCommand() throws Exception {
        try (SpinelServer server = SpinelServer.startEphemeral(); RawClient c = new RawClient(server.port())) {
            c.call("CONFIG", "RESETSTAT");
            for (int i = 0; i < 3; i++) {
                c.call("PING");
                Thread.sleep(300);
            }
            String stats = c.callString("INFO", "commandstats");
            Matcher m = Pattern.compile("cmdstat_ping:calls=(\\d+),usec=(\\d+),").matcher(stats);
            assertTrue(m.find(), stats);
            assertEquals(3, Long.parseLong(m.group(1)));
            assertTrue(Long.parseLong(m.group(2)) < 200_000, "PING's time includes the client's pauses: " + stats);
        }
    }
}
