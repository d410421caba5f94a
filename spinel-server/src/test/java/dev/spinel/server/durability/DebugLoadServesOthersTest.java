package dev.spinel.server.durability;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.Await;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * During DEBUG LOADAOF and DEBUG RELOAD every other client is answered, on every event loop (the DEBUG client's
 * own included), with {@code -LOADING} for what lacks the {@code loading} flag, as from Redis's load (its
 * integration/aof.tcl "EVAL timeout with slow verbatim Lua script from AOF" wants LOADING, not BUSY, from a
 * replayed script); the DEBUG client gets +OK at the end and everyone sees the loaded data. {@code key-load-delay}
 * keeps the load going until the other clients have looked. CLIENT UNBLOCK does not end the DEBUG client's wait (it
 * answered 1 and the DEBUG client got an error of Spinel's own while the load went on).
 */
class DebugLoadServesOthersTest {
    private static final String LOADING = "-LOADING Redis is loading the dataset in memory\r\n";

    @Test
    void debugLoadaofAndReloadAnswerLoadingToEveryOtherClient() throws Exception {
        String dir = Files.createTempDirectory("spinel-debug-load").toString();
        try (SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("dir", dir)
                .with("appendonly", "yes").with("enable-debug-command", "yes").with("save", ""));
             RawClient loader = new RawClient(server.port())) {
            for (int i = 0; i < 20; i++) {
                loader.call("SET", "k" + i, "v" + i);
            }
            loader.call("SAVE");
            String loaderId = text(loader.call("CLIENT", "ID")).substring(1).trim();
            for (String[] debug : List.of(new String[]{"DEBUG", "LOADAOF"}, new String[]{"DEBUG", "RELOAD", "NOSAVE"})) {
                List<RawClient> others = new ArrayList<>(); // several: at least one shares the DEBUG client's loop
                try {
                    for (int i = 0; i < 4; i++) {
                        others.add(new RawClient(server.port()));
                    }
                    loader.call("CONFIG", "SET", "key-load-delay", "100000"); // 0.1 s a key or command
                    loader.send(bytes(debug));
                    Await.waitFor(() -> text(others.get(0).call("PING")).equals(LOADING), String.join(" ", debug) + " loading");
                    for (RawClient c : others) {
                        assertEquals(LOADING, text(c.call("PING")), String.join(" ", debug));
                        assertTrue(text(c.call("INFO", "persistence")).contains("\r\nloading:1\r\n"));
                    }
                    // Redis loads in place: its DEBUG client is not blocked, CLIENT UNBLOCK answers 0 and the load answers +OK
                    assertEquals(":0\r\n", text(others.get(2).call("CLIENT", "UNBLOCK", loaderId)));
                    assertEquals(":0\r\n", text(others.get(2).call("CLIENT", "UNBLOCK", loaderId, "ERROR")));
                    assertEquals("+OK\r\n", text(others.get(1).call("CONFIG", "SET", "key-load-delay", "0")));
                    assertEquals("+OK\r\n", text(loader.readReply()), String.join(" ", debug));
                    for (RawClient c : others) {
                        assertEquals("$3\r\nv19\r\n", text(c.call("GET", "k19")));
                    }
                } finally {
                    for (RawClient c : others) {
                        c.close();
                    }
                }
            }
        }
    }

    private static List<byte[]> bytes(String[] args) {
        List<byte[]> out = new ArrayList<>();
        for (String a : args) {
            out.add(a.getBytes(StandardCharsets.UTF_8));
        }
        return out;
    }

    private static String text(byte[] reply) {
        return new String(reply, StandardCharsets.UTF_8);
    }
}
