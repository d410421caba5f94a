package dev.spinel.server.engine;

import dev.spinel.server.SpinelServer;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The flag bits each command computes at registration say what its Redis spec's flags say. */
class CommandFlagTest {
    @Test
    void everyCommandsBitsMatchItsSpecFlags() {
        try (SpinelServer server = SpinelServer.startEphemeral()) {
            List<Command> all = server.engine().commands().allWithSubcommands();
            assertTrue(all.size() > 200, "commands registered: " + all.size());
            for (Command cmd : all) {
                for (CommandFlag f : CommandFlag.values()) {
                    assertEquals(cmd.spec().flags().contains(f.word()), cmd.has(f), cmd.name() + " " + f.word());
                }
            }
        }
    }

    @Test
    void knownCommandsHaveRedisFlags() {
        try (SpinelServer server = SpinelServer.startEphemeral()) {
            CommandTable table = server.engine().commands();
            Command set = table.get("set");
            assertTrue(set.has(CommandFlag.WRITE) && set.has(CommandFlag.DENYOOM));
            Command get = table.get("get");
            assertTrue(get.has(CommandFlag.READONLY) && get.has(CommandFlag.FAST));
            assertFalse(get.has(CommandFlag.WRITE) || get.has(CommandFlag.DENYOOM));
            assertTrue(table.get("auth").has(CommandFlag.NO_AUTH));
            assertTrue(table.get("save").has(CommandFlag.NO_MULTI));
            assertTrue(table.get("exec").exec);
            assertFalse(set.exec);
        }
    }
}
