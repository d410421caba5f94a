package dev.spinel.server.durability;

import dev.spinel.persistence.RdbReader;
import dev.spinel.persistence.ValueCodecs;
import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.Await;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A BGSAVE taken while strings are changed in place (APPEND within the spare room, SETRANGE and SETBIT over existing
 * bytes, BITFIELD) holds each string as it was when the save began: the snapshot's copy-on-write keeps a reference to
 * the value and freezes it, so the writer copies it before its next change instead of writing into the bytes the save
 * has yet to write. The save is slowed (rdb-key-save-delay) so that the writes overtake it.
 */
class SnapshotOfGrowingStringsTest {
    private static final int KEYS = 64;

    @TempDir
    Path dir;

    @Test
    @Timeout(120)
    void saveHoldsTheStringsAsTheyWereWhenItBegan() throws Exception {
        try (SpinelServer s = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", dir.toString())
                .with("enable-debug-command", "yes").with("rdb-key-save-delay", "300"));
             RawClient c = new RawClient(s.port())) {
            assertEquals("+OK\r\n", c.callString("DEBUG", "POPULATE", "600", "filler"));
            Map<String, String> atSave = new HashMap<>();
            for (int i = 0; i < KEYS; i++) {
                String k = "grow:" + i;
                c.call("SET", k, "start-" + i);
                c.call("APPEND", k, "-appended-so-that-it-is-changed-in-place-" + i); // now with spare room
                c.call("SETBIT", k, "5", "1");
                atSave.put(k, c.callString("GET", k));
            }
            assertEquals("+Background saving started\r\n", c.callString("BGSAVE"));
            int rounds = 0;
            while (s.persistence().bgsaveInProgress()) {
                for (int i = 0; i < KEYS; i++) {
                    String k = "grow:" + i;
                    c.call("APPEND", k, "+");
                    c.call("SETRANGE", k, "1", "#" + rounds);
                    c.call("SETBIT", k, "6", Integer.toString(rounds & 1));
                    c.call("BITFIELD", k, "INCRBY", "u8", "#2", "1");
                }
                rounds++;
            }
            assertTrue(rounds >= 2, "writes while the save ran: " + rounds + " rounds");
            Await.waitFor(() -> !s.persistence().bgsaveInProgress(), "the save to end");
            Map<String, String> saved = new HashMap<>();
            try (InputStream in = Files.newInputStream(dir.resolve("dump.rdb"))) {
                new RdbReader(ValueCodecs.standard(), 16).read(in, (db, key, value, exp, idle, freq) -> {
                    String k = new String(key, StandardCharsets.ISO_8859_1);
                    if (k.startsWith("grow:")) {
                        byte[] v = (byte[]) value;
                        saved.put(k, "$" + v.length + "\r\n" + new String(v, StandardCharsets.ISO_8859_1) + "\r\n");
                    }
                });
            }
            assertEquals(atSave, saved);
            for (int i = 0; i < KEYS; i++) { // and the live strings have every write
                String live = c.callString("GET", "grow:" + i);
                assertTrue(live.endsWith("+".repeat(rounds) + "\r\n"), live);
            }
        }
    }
}
