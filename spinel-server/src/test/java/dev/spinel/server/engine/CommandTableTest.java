package dev.spinel.server.engine;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.CommandMetadata;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/** Command lookup by the request's bytes: every name in any ASCII case, wherever it lies in the buffer, and nothing else. */
class CommandTableTest {
    private static final CommandHandler NOTHING = (s, a) -> { };

    private static CommandTable allOfRedis() {
        CommandTable t = new CommandTable();
        for (String name : CommandMetadata.all().keySet()) {
            t.register(name, NOTHING);
        }
        return t;
    }

    /** The name as argument 0 at the very end of its buffer (no 8 bytes to read past it) and in the middle of one. */
    private static Command[] lookups(CommandTable t, String name) {
        byte[] b = name.getBytes(StandardCharsets.ISO_8859_1);
        Args atEnd = Args.of(b);
        Args inside = Args.of(b, "padding-after-the-name".getBytes(StandardCharsets.US_ASCII));
        return new Command[]{t.lookup(atEnd), t.lookup(inside)};
    }

    @Test
    void findsEveryNameInAnyCase() {
        CommandTable t = allOfRedis();
        for (String name : CommandMetadata.all().keySet()) {
            Command c = t.get(name);
            assertNotNull(c, name);
            StringBuilder mixed = new StringBuilder();
            for (int i = 0; i < name.length(); i++) {
                char ch = name.charAt(i);
                mixed.append(i % 2 == 0 ? Character.toUpperCase(ch) : ch);
            }
            for (String form : new String[]{name, name.toUpperCase(Locale.ROOT), mixed.toString()}) {
                for (Command found : lookups(t, form)) {
                    assertSame(c, found, form);
                }
            }
        }
    }

    @Test
    void findsNothingThatIsNotANameIgnoringAsciiCase() {
        CommandTable t = allOfRedis();
        String[] others = {"", "ge", "gett", "get\0", "\0get", "g\u00c5t", "GE\u00d4", "g@t", "g[t", "get ", "hsetnx1",
                "h\u00d3et", "zrangebyscorex", "\u00e7et", "gEt\u0080"};
        for (String s : others) {
            for (Command found : lookups(t, s)) {
                assertNull(found, s);
            }
        }
        // letters only change case: the bytes just outside 'A'..'Z' are not letters
        assertEquals(0x7A61L, CommandTable.NameIndex.pack(bytes("AZ"), 0, 2));
        assertEquals(0x7B605B40L, CommandTable.NameIndex.pack(bytes("@[`{"), 0, 4));
        assertEquals(0xC161L, CommandTable.NameIndex.pack(bytes("A\u00c1"), 0, 2), "a byte >= 0x80 is no letter");
        assertEquals(CommandTable.NameIndex.pack(bytes("xxGETxxxxxxx"), 2, 3), CommandTable.NameIndex.pack(bytes("get"), 0, 3));
        assertNull(t.lookup(Args.of("`ET")), "'`' is not 'G' + 32 - 32");
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }
}
