package dev.spinel.persistence;

import dev.spinel.store.Keyspace;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static dev.spinel.persistence.RdbInteropTest.cli;
import static dev.spinel.persistence.RdbInteropTest.freePort;
import static dev.spinel.persistence.RdbInteropTest.waitReady;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Function libraries in RDB files ({@code RDB_OPCODE_FUNCTION2}) and in FUNCTION DUMP payloads, against a
 * real {@code redis-server}: it loads ours, we read its, and the payloads are the same bytes.
 */
class RdbFunctionsInteropTest {
    static final String LIB_A = "#!lua name=liba\n redis.register_function('fa', function(keys, args) return 1 end)";
    static final String LIB_B = "#!lua name=libb\n redis.register_function{function_name='fb', callback=function(keys, args) return "
            + "'" + "long enough to be compressed by LZF ".repeat(4) + "' end, flags={'no-writes'}}";

    @TempDir
    Path dir;

    static List<byte[]> codes(String... sources) {
        List<byte[]> l = new ArrayList<>();
        for (String s : sources) {
            l.add(s.getBytes(StandardCharsets.UTF_8));
        }
        return l;
    }

    static List<String> functionsIn(Path file) throws IOException {
        List<String> found = new ArrayList<>();
        try (InputStream in = Files.newInputStream(file)) {
            new RdbReader(ValueCodecs.standard(), 16).read(in, new RdbSink() {
                @Override
                public void function(byte[] code) {
                    found.add(new String(code, StandardCharsets.UTF_8));
                }

                @Override
                public void entry(int db, byte[] key, Object value, long expireAt, long idleSeconds, int freq) {
                }
            });
        }
        return found;
    }

    @Test
    void functionsRoundTripAndASinkWithoutFunctionsRefusesTheFile() throws IOException {
        Path file = dir.resolve("f.rdb");
        RdbFiles.save(new Keyspace(16), file, new RdbWriter.Options(true, true, RdbWriter.Access.NONE,
                RdbWriter.Options.redisAux("7.0.15", 1000, false), codes(LIB_A, LIB_B)));
        assertEquals(List.of(LIB_A, LIB_B), functionsIn(file));
        assertThrows(RdbException.class, () -> RdbFiles.load(new Keyspace(16), file, new KeyspaceLoader(new Keyspace(16), 0)));
    }

    @Test
    void payloadRoundTripAndErrors() {
        byte[] p = FunctionsPayload.create(codes(LIB_A, LIB_B));
        assertTrue(DumpPayload.verify(p));
        List<byte[]> back = FunctionsPayload.read(p);
        assertEquals(2, back.size());
        assertArrayEquals(LIB_B.getBytes(StandardCharsets.UTF_8), back.get(1));
        assertEquals(0, FunctionsPayload.read(FunctionsPayload.create(List.of())).size());
        byte[] notFunction = p.clone();
        notFunction[0] = 0;
        assertEquals("given type is not a function", assertThrows(RdbException.class, () -> FunctionsPayload.read(notFunction)).getMessage());
        notFunction[0] = (byte) Rdb.OPCODE_FUNCTION_PRE_GA;
        assertEquals("Pre-GA function format not supported",
                assertThrows(RdbException.class, () -> FunctionsPayload.read(notFunction)).getMessage());
    }

    @Test
    void redisLoadsOurFileAndOurPayloadAndWeReadItsFileAndPayload() throws Exception {
        Path file = dir.resolve("dump.rdb");
        RdbFiles.save(new Keyspace(16), file, new RdbWriter.Options(true, true, RdbWriter.Access.NONE,
                RdbWriter.Options.redisAux("7.0.15", 1000, false), codes(LIB_A, LIB_B)));
        Process check = new ProcessBuilder("redis-check-rdb", file.toString()).redirectErrorStream(true).start();
        String report = new String(check.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(check.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, check.exitValue(), report);
        int port = freePort();
        Process redis = new ProcessBuilder("redis-server", "--port", Integer.toString(port), "--dir", dir.toString(),
                "--dbfilename", "dump.rdb", "--save", "").redirectErrorStream(true).redirectOutput(dir.resolve("redis.log").toFile()).start();
        byte[] redisPayload;
        try {
            waitReady(port);
            assertEquals("1", cli(port, "fcall", "fa", "0"));
            assertTrue(cli(port, "fcall_ro", "fb", "0").startsWith("long enough"));
            redisPayload = (byte[]) command(port, "FUNCTION", "DUMP");
            assertEquals("OK", command(port, "FUNCTION", "FLUSH"));
            assertEquals("OK", command(port, "FUNCTION", "RESTORE", FunctionsPayload.create(codes(LIB_B))));
            // Its LZF output may differ from ours (both decode the same), so the same code, not the same bytes.
            assertArrayEquals(LIB_B.getBytes(StandardCharsets.UTF_8),
                    FunctionsPayload.read((byte[]) command(port, "FUNCTION", "DUMP")).getFirst());
            assertEquals("OK", command(port, "FUNCTION", "FLUSH"));
            assertArrayEquals("liba".getBytes(StandardCharsets.US_ASCII), (byte[]) command(port, "FUNCTION", "LOAD", LIB_A));
            // One library, uncompressed: the same bytes (with several, Redis's order is its dict's, seeded at random).
            assertArrayEquals(FunctionsPayload.create(codes(LIB_A)), (byte[]) command(port, "FUNCTION", "DUMP"));
            assertEquals("OK", command(port, "FUNCTION", "RESTORE", FunctionsPayload.create(codes(LIB_B))));
            assertArrayEquals("liba".getBytes(StandardCharsets.US_ASCII),
                    (byte[]) command(port, "FUNCTION", "LOAD", "REPLACE", LIB_A.replace("return 1", "return 2")));
            assertEquals("OK", cli(port, "save"));
        } finally {
            redis.destroy();
            redis.waitFor(10, TimeUnit.SECONDS);
        }
        List<String> saved = functionsIn(file);
        assertEquals(2, saved.size());
        assertTrue(saved.contains(LIB_B), saved.toString());
        assertTrue(saved.contains(LIB_A.replace("return 1", "return 2")), saved.toString());
        List<String> fromPayload = new ArrayList<>();
        for (byte[] code : FunctionsPayload.read(redisPayload)) {
            fromPayload.add(new String(code, StandardCharsets.UTF_8));
        }
        assertEquals(2, fromPayload.size());
        assertTrue(fromPayload.containsAll(List.of(LIB_A, LIB_B)), fromPayload.toString());
    }

    @Test
    void preReleaseFunctionOpcodeIsRefused() throws IOException {
        Path file = dir.resolve("pre.rdb");
        try (OutputStream os = Files.newOutputStream(file)) {
            RdbOutput out = new RdbOutput(os, false);
            RdbWriter.writeHeader(out, Map.of());
            out.writeByte(Rdb.OPCODE_FUNCTION_PRE_GA);
            RdbWriter.writeFooter(out, true);
        }
        assertTrue(assertThrows(RdbException.class, () -> functionsIn(file)).getMessage().startsWith("Pre-release function format"));
    }

    /** Sends one command in RESP and reads a simple, error or bulk reply (the payloads are binary). */
    static Object command(int port, Object... args) throws IOException {
        try (Socket s = new Socket("127.0.0.1", port)) {
            ByteArrayOutputStream req = new ByteArrayOutputStream();
            req.write(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            for (Object a : args) {
                byte[] b = a instanceof byte[] bytes ? bytes : a.toString().getBytes(StandardCharsets.UTF_8);
                req.write(("$" + b.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
                req.write(b);
                req.write("\r\n".getBytes(StandardCharsets.US_ASCII));
            }
            s.getOutputStream().write(req.toByteArray());
            DataInputStream in = new DataInputStream(s.getInputStream());
            int type = in.read();
            String line = readLine(in);
            return switch (type) {
                case '+' -> line;
                case '-' -> throw new AssertionError("error reply: " + line);
                case '$' -> {
                    byte[] b = new byte[Integer.parseInt(line)];
                    in.readFully(b);
                    yield b;
                }
                default -> throw new AssertionError("unexpected reply " + (char) type + line);
            };
        }
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        int c;
        while ((c = in.read()) != '\r') {
            sb.append((char) c);
        }
        in.read();
        return sb.toString();
    }
}
