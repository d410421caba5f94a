package dev.spinel.server.engine;

import dev.spinel.protocol.Args;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which fast commands stay in a run after they ran (RunTiming.stays). */
class RunTimingTest {
    @Test
    void aSmallReadStays() {
        assertTrue(CommandRunner.RunTiming.stays(Args.of("GET", "key"), 300, false));
        assertTrue(CommandRunner.RunTiming.stays(Args.of("GET", "key"), 0, false));
    }

    @Test
    void aWriteALargeReplyOrALargeRequestLeaves() {
        assertFalse(CommandRunner.RunTiming.stays(Args.of("GET", "key"), 5, true), "wrote (e.g. a key expired and freed)");
        assertFalse(CommandRunner.RunTiming.stays(Args.of("GET", "key"), 8 * 1024 + 1, false), "large reply");
        assertFalse(CommandRunner.RunTiming.stays(Args.of("GET", "key"), -10, false), "reply buffer emptied (client closed at its limit)");
        assertFalse(CommandRunner.RunTiming.stays(Args.of("HGET", "key", "f".repeat(9000)), 10, false), "large request");
    }
}
