package dev.spinel.server.diff;

import dev.spinel.protocol.ClientText;
import dev.spinel.server.config.Quoting;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * Runs every script in {@code src/test/resources/diff/} against Spinel and a real redis-server and
 * requires identical replies, byte for byte, error texts included. See {@code diff/README.md} for
 * the script syntax.
 */
class DifferentialTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();


    @TestFactory
    Stream<DynamicTest> scripts() throws IOException, URISyntaxException {
        Path dir = Path.of(DifferentialTest.class.getResource("/diff").toURI());
        List<Path> files;
        try (Stream<Path> s = Files.list(dir)) {
            files = s.filter(p -> p.toString().endsWith(".redis")).sorted().toList();
        }
        String only = System.getProperty("diff.only");
        return files.stream()
                .filter(p -> only == null || p.getFileName().toString().contains(only))
                .map(p -> DynamicTest.dynamicTest(p.getFileName().toString(), () -> run(p)));
    }

    private void run(Path script) throws Exception {
        ScriptRun run = new ScriptRun(script.getFileName().toString(), SERVERS.spinel().port(), SERVERS.redis().port());
        try {
            run.execute(Files.readAllLines(script, StandardCharsets.UTF_8));
        } finally {
            run.close();
        }
        if (!run.failures.isEmpty()) {
            fail(run.failures.size() + " difference(s) in " + script.getFileName() + ":\n" + String.join("\n", run.failures));
        }
    }

    /** One script's execution: numbered connection pairs, one to each server. */
    private static final class ScriptRun implements AutoCloseable {
        private final String name;
        private final int spinelPort;
        private final int redisPort;
        private final Map<Integer, RawClient[]> conns = new HashMap<>();
        private RawClient[] current;
        final List<String> failures = new ArrayList<>();

        ScriptRun(String name, int spinelPort, int redisPort) throws IOException {
            this.name = name;
            this.spinelPort = spinelPort;
            this.redisPort = redisPort;
            current = conn(1);
            for (RawClient c : current) {
                c.call("FLUSHALL");
            }
        }

        private RawClient[] conn(int n) throws IOException {
            RawClient[] pair = conns.get(n);
            if (pair == null) {
                pair = new RawClient[]{new RawClient(spinelPort), new RawClient(redisPort)};
                conns.put(n, pair);
            }
            return pair;
        }

        void execute(List<String> lines) throws Exception {
            for (int n = 0; n < lines.size(); n++) {
                try {
                    step(lines, n);
                } catch (IOException e) {
                    throw new IOException(name + ":" + (n + 1) + " `" + lines.get(n).strip() + "`: " + e.getMessage(), e);
                }
            }
        }

        private void step(List<String> lines, int n) throws Exception {
            {
                String line = lines.get(n).strip();
                if (line.isEmpty() || line.startsWith("#")) {
                    return;
                }
                String where = name + ":" + (n + 1) + " `" + line + "`";
                Mode mode = Mode.EXACT;
                if (line.startsWith("!")) {
                    int sp = line.indexOf(' ');
                    String directive = sp < 0 ? line.substring(1) : line.substring(1, sp);
                    String rest = sp < 0 ? "" : line.substring(sp + 1).strip();
                    switch (directive) {
                        case "sleep" -> {
                            Thread.sleep(Long.parseLong(rest));
                            return;
                        }
                        case "second-start" -> { // 200 ms into a wall-clock second (Redis's LRU clock counts seconds)
                            Thread.sleep((1200 - System.currentTimeMillis() % 1000) % 1000);
                            return;
                        }
                        case "conn" -> {
                            current = conn(Integer.parseInt(rest));
                            return;
                        }
                        case "closed" -> {
                            boolean a = current[0].isClosedByServer();
                            boolean b = current[1].isClosedByServer();
                            if (a != b) {
                                failures.add(where + ": spinel closed=" + a + " redis closed=" + b);
                            }
                            return;
                        }
                        case "read" -> {
                            compare(where, Mode.EXACT, current[0].readReply(), current[1].readReply());
                            return;
                        }
                        case "raw" -> {
                            byte[] bytes = toBytes(List.of(Quoting.split("\"" + rest + "\"").getFirst())).getFirst();
                            byte[] s = sendRaw(current[0], bytes);
                            byte[] r = sendRaw(current[1], bytes);
                            compare(where, Mode.EXACT, s, r);
                            return;
                        }
                        case "send" -> { // raw bytes that get no reply (CLIENT REPLY OFF, a command that blocks)
                            byte[] bytes = toBytes(List.of(Quoting.split("\"" + rest + "\"").getFirst())).getFirst();
                            current[0].sendRaw(bytes);
                            current[1].sendRaw(bytes);
                            return;
                        }
                        case "slow" -> {
                            slow(where, rest);
                            return;
                        }
                        case "unordered" -> mode = Mode.UNORDERED;
                        case "scanset" -> mode = Mode.SCANSET;
                        case "ignore" -> mode = Mode.IGNORE;
                        case "type" -> mode = Mode.TYPE;
                        default -> throw new IllegalArgumentException(where + ": unknown directive");
                    }
                    line = rest;
                }
                List<String> words = Quoting.split(line);
                if (words == null || words.isEmpty()) {
                    throw new IllegalArgumentException(where + ": unbalanced quotes");
                }
                List<byte[]> args = toBytes(words);
                byte[] s = current[0].call(args);
                byte[] r = current[1].call(args);
                compare(where, mode, s, r);
            }
        }

        /**
         * A command that runs for seconds (PFSELFTEST): sent to both servers before either reply is read, so they
         * run it at the same time, each reply awaited for up to 120 s. Under a heavy load redis-server itself took
         * 11-14 s for a PFSELFTEST of 0.7 s of CPU: past the usual 10 s read timeout.
         */
        private void slow(String where, String line) throws IOException {
            List<String> words = Quoting.split(line);
            if (words == null || words.isEmpty()) {
                throw new IllegalArgumentException(where + ": unbalanced quotes");
            }
            List<byte[]> args = toBytes(words);
            for (RawClient c : current) {
                c.setReadTimeout(120_000);
                c.send(args);
            }
            byte[] s = current[0].readReply();
            byte[] r = current[1].readReply();
            for (RawClient c : current) {
                c.setReadTimeout(10_000);
            }
            compare(where, Mode.EXACT, s, r);
        }

        private static byte[] sendRaw(RawClient c, byte[] bytes) throws IOException {
            c.sendRaw(bytes);
            try {
                return c.readReply();
            } catch (IOException closed) {
                return "<closed>".getBytes(StandardCharsets.US_ASCII);
            }
        }

        private void compare(String where, Mode mode, byte[] spinelReply, byte[] redisReply) {
            boolean same = switch (mode) {
                case EXACT -> Arrays.equals(spinelReply, redisReply);
                case IGNORE -> true;
                case TYPE -> spinelReply.length > 0 && redisReply.length > 0 && spinelReply[0] == redisReply[0];
                case UNORDERED -> Replies.sortedElements(spinelReply).equals(Replies.sortedElements(redisReply));
                case SCANSET -> Replies.scanElements(spinelReply).equals(Replies.scanElements(redisReply));
            };
            if (!same) {
                failures.add(where + "\n    spinel: " + Replies.escape(spinelReply) + "\n    redis:  " + Replies.escape(redisReply));
            }
        }

        private static List<byte[]> toBytes(List<String> words) {
            List<byte[]> out = new ArrayList<>();
            for (String w : words) {
                out.add(ClientText.encode(w)); // the word's bytes: its text as UTF-8, \xhh escapes as themselves
            }
            return out;
        }

        @Override
        public void close() throws IOException {
            for (RawClient[] pair : conns.values()) {
                for (RawClient c : pair) {
                    c.close();
                }
            }
        }
    }

    enum Mode { EXACT, UNORDERED, SCANSET, IGNORE, TYPE }
}
