package dev.spinel.server.diff;

import dev.spinel.protocol.RespReader;
import dev.spinel.protocol.RespValue;
import dev.spinel.server.diff.FuzzCommands.Cmd;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.fail;

/**
 * The differential command fuzzer: random command sequences ({@link FuzzCommands}) sent to Spinel and to a
 * real redis-server, replies compared byte for byte (Redis's own nondeterminism structurally). Runs in
 * episodes of {@value #EPISODE} commands from an empty keyspace, each from its own seed, until the time
 * budget is spent: {@code -Dspinel.fuzz.seconds} (default 10, what CI runs: about 500 episodes, 75k commands, on
 * a loaded 2-core machine; every run draws a fresh seed, so the suite's runs add up to new sequences rather than
 * one run having to cover them, and a long hunt is {@code -Dspinel.fuzz.seconds=600}). A mismatch is shrunk to a
 * minimal sequence that still shows it; the report prints that sequence and the seeds to replay:
 * {@code -Dspinel.fuzz.seed=N} replays a whole run, {@code -Dspinel.fuzz.episode=N} one episode.
 * A run collects up to {@value #MAX_FINDINGS} mismatches (one per command name) before failing, so a long
 * run reports everything it found rather than the first.
 *
 * <p>Low encoding thresholds on both servers make listpack/intset conversions frequent.
 */
class CommandSequenceFuzzTest {
    private static final int EPISODE = 150;
    private static final int MAX_FINDINGS = 12;
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide("set-max-intset-entries", "8", "hash-max-listpack-entries", "8",
            "hash-max-listpack-value", "16", "zset-max-listpack-entries", "8", "zset-max-listpack-value", "16",
            "list-max-listpack-size", "4");

    private RawClient spinel;
    private RawClient redis;

    @Test
    void randomCommandSequencesAnswerLikeRedis() throws IOException {
        long seconds = Long.getLong("spinel.fuzz.seconds", 10);
        long runSeed = Long.getLong("spinel.fuzz.seed", System.nanoTime());
        Long onlyEpisode = Long.getLong("spinel.fuzz.episode");
        Random seeds = new Random(runSeed);
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        Map<String, String> findings = new LinkedHashMap<>();
        long episodes = 0;
        long commands = 0;
        try {
            connect();
            do {
                long episodeSeed = onlyEpisode != null ? onlyEpisode : seeds.nextLong();
                FuzzCommands gen = new FuzzCommands(new Random(episodeSeed));
                List<Cmd> sequence = new ArrayList<>(EPISODE);
                reset();
                for (int i = 0; i < EPISODE; i++) {
                    Cmd c = gen.next();
                    sequence.add(c);
                    commands++;
                    String diff = compare(c);
                    if (diff != null) {
                        if (!findings.containsKey(c.name())) {
                            findings.put(c.name(), report(runSeed, episodeSeed, sequence, diff));
                        }
                        break;
                    }
                }
                episodes++;
            } while (onlyEpisode == null && System.nanoTime() < deadline && findings.size() < MAX_FINDINGS);
        } finally {
            close();
        }
        System.out.printf("[CommandSequenceFuzzTest] seed %d: %d episodes, %d commands in %d s, %d finding(s)%n",
                runSeed, episodes, commands, seconds, findings.size());
        if (!findings.isEmpty()) {
            fail(findings.size() + " difference(s) from redis-server:\n\n" + String.join("\n\n", findings.values()));
        }
    }

    private void connect() throws IOException {
        spinel = new RawClient(SERVERS.spinel().port());
        redis = new RawClient(SERVERS.redis().port());
    }

    private void close() throws IOException {
        if (spinel != null) {
            spinel.close();
        }
        if (redis != null) {
            redis.close();
        }
    }

    /** Back to an empty keyspace on database 0, outside any transaction, watching nothing. */
    private void reset() throws IOException {
        for (RawClient c : List.of(spinel, redis)) {
            c.call("DISCARD");
            c.call("UNWATCH");
            c.call("SELECT", "0");
            c.call("FLUSHALL");
        }
    }

    /** Sends the command to both servers; null when the replies agree, else the two replies. */
    private String compare(Cmd c) throws IOException {
        byte[] a = spinel.call(c.args());
        byte[] b = redis.call(c.args());
        if (agree(c, a, b)) {
            return null;
        }
        return "spinel: " + Replies.escape(a) + "\n  redis:  " + Replies.escape(b);
    }

    private static boolean agree(Cmd c, byte[] a, byte[] b) {
        if (Arrays.equals(a, b)) {
            return true;
        }
        if (a.length == 0 || b.length == 0) {
            return false;
        }
        if (a[0] == '-' || b[0] == '-') {
            return false;
        }
        return switch (c.compare()) {
            case EXACT -> false;
            case UNORDERED -> Replies.sortedElements(a).equals(Replies.sortedElements(b));
            case SHAPE -> shape(a).equals(shape(b));
            case CLOCK -> clockClose(a, b, c.name().startsWith("P") ? 2000 : 2);
        };
    }

    private static String shape(byte[] raw) {
        RespValue v = new RespReader(raw).read();
        return switch (v) {
            case RespValue.Array arr -> "array " + arr.items().size();
            default -> v.getClass().getSimpleName();
        };
    }

    /** Both integers, equal when either is negative (no key, no expiry), else within {@code tolerance}. */
    private static boolean clockClose(byte[] a, byte[] b, long tolerance) {
        if (a[0] != ':' || b[0] != ':') {
            return false;
        }
        long x = Long.parseLong(new String(a, 1, a.length - 3, StandardCharsets.US_ASCII));
        long y = Long.parseLong(new String(b, 1, b.length - 3, StandardCharsets.US_ASCII));
        return x >= 0 && y >= 0 && Math.abs(x - y) <= tolerance;
    }

    /**
     * Shrinks the sequence, keeping its last command (the one that differed) and dropping every other command
     * whose removal still leaves a difference at the end, then describes it.
     */
    private String report(long runSeed, long episodeSeed, List<Cmd> sequence, String diff) throws IOException {
        List<Cmd> minimal = new ArrayList<>(sequence);
        String lastDiff = diff;
        for (int chunk = Math.max(1, minimal.size() / 2); chunk >= 1; chunk /= 2) {
            for (int from = minimal.size() - 1 - chunk; from >= 0; from -= chunk) {
                List<Cmd> candidate = new ArrayList<>(minimal.subList(0, from));
                candidate.addAll(minimal.subList(from + chunk, minimal.size()));
                String d = replay(candidate);
                if (d != null) {
                    minimal = candidate;
                    lastDiff = d;
                }
            }
        }
        StringBuilder s = new StringBuilder();
        s.append(sequence.getLast().name()).append(": run seed ").append(runSeed).append(", episode seed ").append(episodeSeed)
                .append(" (-Dspinel.fuzz.episode=").append(episodeSeed).append("), command ").append(sequence.size())
                .append(" of the episode; minimal sequence (").append(minimal.size()).append(" commands, from an empty keyspace):\n");
        for (Cmd c : minimal) {
            s.append("  ").append(c.show()).append('\n');
        }
        s.append("  ").append(lastDiff);
        reset();
        return s.toString();
    }

    /** Replays from an empty keyspace; the difference at the last command, or null if it does not differ. */
    private String replay(List<Cmd> sequence) throws IOException {
        reset();
        for (int i = 0; i < sequence.size() - 1; i++) {
            spinel.call(sequence.get(i).args());
            redis.call(sequence.get(i).args());
        }
        return compare(sequence.getLast());
    }
}
