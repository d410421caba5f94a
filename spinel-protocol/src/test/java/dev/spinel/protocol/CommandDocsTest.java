package dev.spinel.protocol;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The docs a spec reads on demand ({@link CommandDocs}) are the recorded ones, for commands and subcommands alike. */
class CommandDocsTest {
    @Test
    void everySpecFindsItsRecordedDocs() {
        int subs = 0;
        for (CommandSpec top : CommandMetadata.all().values()) {
            RespValue.MapValue docs = assertInstanceOf(RespValue.MapValue.class, top.docs(), top.name());
            assertTrue(text(docs).contains("summary"), top.name());
            RespValue recordedSubs = field(docs, "subcommands");
            for (CommandSpec sub : top.subcommands().values()) {
                assertNotNull(recordedSubs, sub.name());
                assertSame(field((RespValue.MapValue) recordedSubs, sub.name()), sub.docs(), sub.name());
                subs++;
            }
        }
        assertTrue(subs > 50, "subcommands checked: " + subs);
    }

    @Test
    void aSubcommandsDocsAreItsOwn() {
        RespValue docs = CommandMetadata.get("config").subcommands().get("get").docs();
        assertEquals("Get the values of configuration parameters",
                RespValue.text(field((RespValue.MapValue) docs, "summary")));
    }

    private static RespValue field(RespValue.MapValue m, String key) {
        List<RespValue> e = m.entries();
        for (int i = 0; i < e.size(); i += 2) {
            if (key.equals(RespValue.text(e.get(i)))) {
                return e.get(i + 1);
            }
        }
        return null;
    }

    private static List<String> text(RespValue.MapValue m) {
        List<RespValue> e = m.entries();
        return IntStream.iterate(0, i -> i < e.size(), i -> i + 2).mapToObj(i -> RespValue.text(e.get(i))).toList();
    }
}
