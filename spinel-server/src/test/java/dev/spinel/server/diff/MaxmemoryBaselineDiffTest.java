package dev.spinel.server.diff;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@code CONFIG SET maxmemory 1} over an empty dataset: Redis's used_memory counts its whole server
 * (a start-up baseline of ~850 KB, clients, scripts), so it is over the limit and refuses every write that
 * may grow the dataset, while reads, DEL and scripts that declare no writes go on. Spinel counted the
 * dataset only (a few bytes here) and let the writes through; Redis's scripting, functions and tracking
 * units stopped there.
 */
class MaxmemoryBaselineDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    @Test
    void maxmemoryOneRefusesWritesButNotReadsOrDeletesAsRedis() throws Exception {
        assertEquals(transcript(SERVERS.redis().port()), transcript(SERVERS.spinel().port()));
    }

    private static List<String> transcript(int port) throws Exception {
        List<String> out = new ArrayList<>();
        try (RawClient r = new RawClient(port)) {
            r.call("SELECT", "7");
            out.add(text(r.call("FLUSHALL"))); // no key at all: the dataset alone is not over the limit
            out.add(text(r.call("CONFIG", "SET", "maxmemory", "1")));
            out.add(text(r.call("SET", "a", "1")));
            out.add(text(r.call("SET", "b", "1")));
            out.add(text(r.call("LPUSH", "l", "x")));
            out.add(text(r.call("GET", "a")));
            out.add(text(r.call("EXISTS", "b")));
            out.add(text(r.call("MULTI")));
            out.add(text(r.call("GET", "a")));
            out.add(text(r.call("EXEC")));
            // a script without flags may read; its first write that may grow the dataset is refused
            out.add(text(r.call("EVAL", "return redis.call('get','a')", "0")));
            out.add(text(r.call("EVAL", "return redis.pcall('set','c','1')['err']", "0")));
            // a script declaring flags is refused before it runs, unless it does not write
            out.add(text(r.call("EVAL", "#!lua\nreturn 1", "0")));
            out.add(text(r.call("EVAL", "#!lua flags=no-writes\nreturn redis.call('get','a')", "0")));
            out.add(text(r.call("EVAL", "#!lua flags=allow-oom\nreturn redis.call('set','d','1')", "0")));
            out.add(text(r.call("DEL", "a", "d")));
            out.add(text(r.call("SET", "e", "1")));
            out.add(text(r.call("CONFIG", "SET", "maxmemory", "0")));
            out.add(text(r.call("SET", "b", "1")));
            out.add(text(r.call("FLUSHDB")));
        }
        return out;
    }

    private static String text(byte[] reply) {
        return new String(reply, StandardCharsets.ISO_8859_1);
    }
}
