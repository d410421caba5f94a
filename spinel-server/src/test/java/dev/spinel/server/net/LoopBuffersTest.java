package dev.spinel.server.net;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Connections share their event loop's input and reply scratch ({@link LoopBuffers}): an idle client holds no
 * buffer, and a client whose read ends inside a request keeps its part of the input to itself while the other
 * clients of the same loop go on with the shared one. One event loop, so that every client below shares it.
 */
class LoopBuffersTest {
    private static SpinelServer oneLoop() {
        return SpinelServer.start(ServerConfig.defaults().with("port", "0").with("event-loop-threads", "1"));
    }

    private static String bulk(String s) {
        return "$" + s.length() + "\r\n" + s + "\r\n";
    }

    private static String field(String clientLine, String name) {
        Matcher m = Pattern.compile("(?:^| )" + name + "=(\\S*)").matcher(clientLine);
        assertTrue(m.find(), clientLine);
        return m.group(1);
    }

    private static String lineOf(String clientList, String name) {
        for (String line : clientList.split("\n")) {
            if (line.contains(" name=" + name + " ")) {
                return line;
            }
        }
        throw new AssertionError("no client " + name + " in " + clientList);
    }

    @Test
    void idleClientHoldsNoQueryOrReplyBuffer() throws Exception {
        try (SpinelServer server = oneLoop(); RawClient idle = new RawClient(server.port());
             RawClient admin = new RawClient(server.port())) {
            assertEquals("+OK\r\n", idle.callString("CLIENT", "SETNAME", "idle"));
            assertEquals("+PONG\r\n", idle.callString("PING"));
            String line = lineOf(admin.callString("CLIENT", "LIST"), "idle");
            // CLIENT LIST shows the receive buffer of its last read for 2 s, as Redis keeps an idle client's
            // query buffer until its cron frees it; the client holds nothing of its own
            assertEquals("0", field(line, "qbuf"), line);
            assertTrue(Long.parseLong(field(line, "qbuf-free")) <= 16384, line);
            assertEquals("0", field(line, "rbs"), line);
            Thread.sleep(2100);
            line = lineOf(admin.callString("CLIENT", "LIST"), "idle");
            assertTrue(Long.parseLong(field(line, "tot-mem")) < 1024, line);
            assertEquals("0", field(line, "qbuf"), line);
            assertEquals("0", field(line, "qbuf-free"), line);
            assertEquals("0", field(line, "rbs"), line);
        }
    }

    @Test
    void partialRequestStaysWithItsClientWhileOthersUseTheLoop() throws Exception {
        try (SpinelServer server = oneLoop(); RawClient a = new RawClient(server.port());
             RawClient b = new RawClient(server.port()); RawClient admin = new RawClient(server.port())) {
            assertEquals("+OK\r\n", a.callString("CLIENT", "SETNAME", "half"));
            byte[] value = new byte[3000];
            for (int i = 0; i < value.length; i++) {
                value[i] = (byte) ('a' + i % 26);
            }
            byte[] request = RawClient.encode(List.of("SET".getBytes(StandardCharsets.US_ASCII),
                    "k".getBytes(StandardCharsets.US_ASCII), value));
            int cut = request.length - 1000; // inside the value
            a.sendRaw(java.util.Arrays.copyOfRange(request, 0, cut));
            // b's requests go through the loop's shared buffers meanwhile, with values that would overwrite a's bytes
            for (int i = 0; i < 50; i++) {
                byte[] other = new byte[4000];
                java.util.Arrays.fill(other, (byte) ('0' + i % 10));
                assertEquals("+OK\r\n", new String(b.call(List.of("SET".getBytes(StandardCharsets.US_ASCII),
                        ("o" + i).getBytes(StandardCharsets.US_ASCII), other)), StandardCharsets.US_ASCII));
            }
            String line = lineOf(admin.callString("CLIENT", "LIST"), "half");
            assertTrue(Long.parseLong(field(line, "qbuf")) > 0, line); // a holds its part of the request
            a.sendRaw(java.util.Arrays.copyOfRange(request, cut, request.length));
            assertEquals("+OK\r\n", new String(a.readReply(), StandardCharsets.US_ASCII));
            assertEquals(bulk(new String(value, StandardCharsets.US_ASCII)), b.callString("GET", "k"));
            line = lineOf(admin.callString("CLIENT", "LIST"), "half");
            assertEquals("0", field(line, "qbuf"), line); // and lets go of it once the request ran
            Thread.sleep(2100); // past the 2 s for which CLIENT LIST shows the last read's receive buffer
            line = lineOf(admin.callString("CLIENT", "LIST"), "half");
            assertEquals("0", field(line, "qbuf-free"), line);
        }
    }

    @Test
    void repliesBeforeAScriptAreKeptInOrder() throws Exception {
        // EVAL runs on the script thread, which writes the client's replies while the loop serves others: the
        // replies already in the loop's scratch move to the client's own buffer first.
        try (SpinelServer server = oneLoop(); RawClient a = new RawClient(server.port());
             RawClient b = new RawClient(server.port())) {
            List<byte[]> pipeline = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                pipeline.add(RawClient.encode(List.of("ECHO".getBytes(StandardCharsets.US_ASCII),
                        ("before" + i).getBytes(StandardCharsets.US_ASCII))));
            }
            pipeline.add(RawClient.encode(List.of("EVAL".getBytes(StandardCharsets.US_ASCII),
                    "local x = 0 for i = 1, 200000 do x = x + i end return x".getBytes(StandardCharsets.US_ASCII),
                    "0".getBytes(StandardCharsets.US_ASCII))));
            pipeline.add(RawClient.encode(List.of("ECHO".getBytes(StandardCharsets.US_ASCII),
                    "after".getBytes(StandardCharsets.US_ASCII))));
            java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
            for (byte[] p : pipeline) {
                all.write(p);
            }
            a.sendRaw(all.toByteArray());
            for (int i = 0; i < 30; i++) { // the loop serves b while the script may still run
                assertEquals(bulk("b" + i), b.callString("ECHO", "b" + i));
            }
            for (int i = 0; i < 20; i++) {
                assertEquals(bulk("before" + i), new String(a.readReply(), StandardCharsets.US_ASCII));
            }
            assertEquals(":20000100000\r\n", new String(a.readReply(), StandardCharsets.US_ASCII));
            assertEquals(bulk("after"), new String(a.readReply(), StandardCharsets.US_ASCII));
        }
    }

    @Test
    void clientReadingWhileItsScriptRunsNeverSharesTheLoopsReplyArray() throws Exception {
        // The script thread writes the client's replies; a read of the same client meanwhile, and the other
        // clients of the loop, must not put the loop's reply scratch under it.
        try (SpinelServer server = oneLoop(); RawClient a = new RawClient(server.port());
             RawClient b = new RawClient(server.port())) {
            for (int round = 0; round < 5; round++) {
                a.send(List.of("EVAL".getBytes(StandardCharsets.US_ASCII),
                        ("local s = '' for i = 1, 300 do s = s .. 'x' end local x = 0 for i = 1, 300000 do x = x + 1 end "
                                + "return {s, x}").getBytes(StandardCharsets.US_ASCII), "0".getBytes(StandardCharsets.US_ASCII)));
                a.send(List.of("ECHO".getBytes(StandardCharsets.US_ASCII), ("then" + round).getBytes(StandardCharsets.US_ASCII)));
                for (int i = 0; i < 20; i++) {
                    assertEquals(bulk("b" + i + "-" + "y".repeat(200)), b.callString("ECHO", "b" + i + "-" + "y".repeat(200)));
                }
                assertEquals("*2\r\n" + bulk("x".repeat(300)) + ":300000\r\n",
                        new String(a.readReply(), StandardCharsets.US_ASCII));
                assertEquals(bulk("then" + round), new String(a.readReply(), StandardCharsets.US_ASCII));
            }
        }
    }
}
