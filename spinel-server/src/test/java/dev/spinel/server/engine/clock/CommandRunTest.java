package dev.spinel.server.engine.clock;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Runs of commands timed together (CommandChain.join): who may join, and what each is told. */
class CommandRunTest {
    /** Records what a joined command is told. */
    private static final class Recorder implements CommandChain.Timed {
        final List<Long> told = new ArrayList<>();
        boolean histogram;

        @Override
        public void took(long micros, boolean histogram) {
            told.add(micros);
            this.histogram = histogram;
        }
    }

    @Test
    void aRunIsTimedAtTheNextReadWithEqualShares() {
        CommandChain chain = new CommandChain();
        chain.open();
        assertFalse(chain.canJoin(), "no reading yet: the first command reads the clock");
        chain.start();
        long ninetyMsAgo = System.nanoTime() - 90_000_000L;
        chain.end(ninetyMsAgo);
        assertTrue(chain.canJoin());
        assertEquals(ninetyMsAgo, chain.runStart());
        Recorder a = new Recorder();
        Recorder b = new Recorder();
        Recorder c = new Recorder();
        chain.join(a, true);
        chain.join(b, true);
        chain.join(c, true);
        assertTrue(a.told.isEmpty(), "timed only when the run ends");
        long now = chain.start(); // a command that does not join ends the run
        long share = (now - ninetyMsAgo) / 3 / 1000;
        assertTrue(share >= 30_000, "share " + share);
        for (Recorder r : List.of(a, b, c)) {
            assertEquals(List.of(share), r.told);
            assertTrue(r.histogram);
        }
        assertFalse(chain.canJoin(), "the reading was taken by the command that ended the run");
    }

    @Test
    void closingTheChainEndsItsRunAndNothingJoinsAClosedChain() {
        CommandChain chain = new CommandChain();
        chain.end(System.nanoTime());
        assertFalse(chain.canJoin(), "not open");
        chain.open();
        chain.end(System.nanoTime() - 5_000_000L);
        Recorder a = new Recorder();
        chain.join(a, false);
        chain.close();
        assertEquals(1, a.told.size());
        assertTrue(a.told.get(0) >= 5_000);
        assertFalse(a.histogram);
        assertFalse(chain.canJoin());
    }

    @Test
    void aRunInsideACommandEndsAtThatCommandsEnd() {
        // EXEC: its queued fast commands join a run that EXEC's own end times
        CommandChain chain = new CommandChain();
        chain.open();
        long execStart = chain.start();
        chain.end(execStart + 1_000_000); // the first queued command read the clock at its start
        Recorder a = new Recorder();
        chain.join(a, true);
        long execEnd = execStart + 9_000_000;
        chain.end(execEnd);
        assertEquals(List.of(8_000L), a.told);
        assertEquals(execEnd, chain.start(), "EXEC's end starts the next command");
    }

    @Test
    void aFullRunTakesNoMore() {
        CommandChain chain = new CommandChain();
        chain.open();
        chain.end(System.nanoTime());
        Recorder a = new Recorder();
        for (int i = 0; i < CommandChain.MAX_RUN; i++) {
            assertTrue(chain.canJoin());
            chain.join(a, true);
        }
        assertFalse(chain.canJoin());
        chain.start();
        assertEquals(CommandChain.MAX_RUN, a.told.size());
        assertTrue(chain.canJoin() == false);
    }

    private static long stat(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        assertTrue(m.find(), regex + " in " + text);
        return Long.parseLong(m.group(1));
    }

    /** {@code n} GETs and a SET every tenth request, sent in one write; every reply read. */
    private static void pipeline(RawClient c, int n) throws Exception {
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        for (int i = 0; i < n; i++) {
            all.write(RawClient.encode(List.of("GET".getBytes(StandardCharsets.UTF_8), ("k" + i).getBytes(StandardCharsets.UTF_8))));
            if (i % 10 == 9) {
                all.write(RawClient.encode(List.of("SET".getBytes(StandardCharsets.UTF_8),
                        ("k" + i).getBytes(StandardCharsets.UTF_8), "v".getBytes(StandardCharsets.UTF_8))));
            }
        }
        c.sendRaw(all.toByteArray());
        for (int i = 0; i < n + n / 10; i++) {
            c.readReply();
        }
    }

    @Test
    void pipelinedFastCommandsAreCountedInCommandStatsAndHistograms() throws Exception {
        try (SpinelServer server = SpinelServer.startEphemeral(); RawClient c = new RawClient(server.port())) {
            c.call("CONFIG", "RESETSTAT");
            pipeline(c, 500);
            String stats = c.callString("INFO", "commandstats");
            assertEquals(500, stat(stats, "cmdstat_get:calls=(\\d+),"));
            assertEquals(50, stat(stats, "cmdstat_set:calls=(\\d+),"));
            String histogram = new String(c.call("LATENCY", "HISTOGRAM", "get"), StandardCharsets.UTF_8);
            assertEquals(500, stat(histogram, "calls\r\n:(\\d+)"), histogram);
        }
    }

    @Test
    void aFastCommandThatTurnsOutSlowIsStillInTheSlowlog() throws Exception {
        try (SpinelServer server = SpinelServer.startEphemeral(); RawClient c = new RawClient(server.port())) {
            byte[] big = new byte[32 * 1024 * 1024];
            c.call(List.of("SET".getBytes(StandardCharsets.UTF_8), "big".getBytes(StandardCharsets.UTF_8), big));
            c.call("SET", "small", "v");
            c.call("CONFIG", "SET", "slowlog-log-slower-than", "1000"); // runs are allowed at 1 ms
            ByteArrayOutputStream batch = new ByteArrayOutputStream();
            for (String key : new String[] {"small", "small", "big", "small"}) {
                batch.write(RawClient.encode(List.of("GET".getBytes(StandardCharsets.UTF_8), key.getBytes(StandardCharsets.UTF_8))));
            }
            // A small GET preempted for over 1 ms on a loaded machine is rightly logged too (Redis would log it):
            // a few tries, one of which must show the big GET logged alone.
            String log = "";
            for (int attempt = 0; attempt < 5; attempt++) {
                c.call("SLOWLOG", "RESET");
                c.sendRaw(batch.toByteArray()); // one batch: the GET of 32 MB comes after two that joined a run
                for (int i = 0; i < 4; i++) {
                    c.readReply();
                }
                log = new String(c.call("SLOWLOG", "GET"), StandardCharsets.UTF_8);
                assertTrue(log.contains("$3\r\nbig\r\n"), "copying 32 MB takes over 1 ms: " + log);
                if (!log.contains("$5\r\nsmall\r\n")) {
                    break;
                }
            }
            assertFalse(log.contains("$5\r\nsmall\r\n"), log);
        }
    }

    @Test
    void withALowSlowlogThresholdEachFastCommandIsTimedAlone() throws Exception {
        try (SpinelServer server = SpinelServer.startEphemeral(); RawClient c = new RawClient(server.port())) {
            c.call("CONFIG", "SET", "slowlog-log-slower-than", "0");
            c.call("CONFIG", "SET", "slowlog-max-len", "1000");
            c.call("SLOWLOG", "RESET");
            pipeline(c, 100);
            // each of the 110 commands logged on its own, after SLOWLOG RESET's own entry (redis-server 7.0.15: 111)
            assertEquals(":111\r\n", new String(c.call("SLOWLOG", "LEN"), StandardCharsets.UTF_8));
        }
    }
}
