package dev.spinel.server.diff;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * CLIENT TRACKING BCAST invalidations grouped as redis-server 7.0.15 groups them: the keys one writer's
 * pipeline changes (sent in one write, so read in one batch) come in one message per prefix, each key once
 * and in byte order, without a NOLOOP client's own keys; RESP3 pushes, and RESP2 messages on
 * {@code __redis__:invalidate} for a redirect target. After each pipeline a separate write to a sentinel
 * key marks where the receiver's output for it ends.
 */
class TrackingBroadcastDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    @Test
    void broadcastsAreGroupedAsRedis() throws Exception {
        assertEquals(transcript(SERVERS.redis().port()), transcript(SERVERS.spinel().port()));
    }

    private static List<String> transcript(int port) throws Exception {
        List<String> out = new ArrayList<>();
        try (RawClient all = new RawClient(port); RawClient ab = new RawClient(port); RawClient noloop = new RawClient(port);
             RawClient writer = new RawClient(port); RawClient resp2 = new RawClient(port); RawClient redirecting = new RawClient(port)) {
            all.call("HELLO", "3");
            out.add(text(all.call("CLIENT", "TRACKING", "ON", "BCAST")));
            ab.call("HELLO", "3");
            out.add(text(ab.call("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "a", "PREFIX", "b")));
            noloop.call("HELLO", "3");
            out.add(text(noloop.call("CLIENT", "TRACKING", "ON", "BCAST", "NOLOOP", "PREFIX", "n")));
            String id = text(resp2.call("CLIENT", "ID"));
            out.add(text(resp2.call("SUBSCRIBE", "__redis__:invalidate")));
            out.add(text(redirecting.call("CLIENT", "TRACKING", "ON", "BCAST", "REDIRECT", id.substring(1, id.length() - 2),
                    "PREFIX", "q")));

            pipeline(writer, out, new String[]{"MSET", "c", "1", "b", "2"}, new String[]{"SET", "a", "3"},
                    new String[]{"SET", "c", "4"}, new String[]{"DEL", "b"}, new String[]{"MULTI"},
                    new String[]{"SET", "e2", "1"}, new String[]{"SET", "e1", "1"}, new String[]{"EXEC"});
            sentinel(writer, out, "as1", all, ab);
            pipeline(writer, out, new String[]{"MSET", "b1", "1", "a2", "2", "c1", "3"}, new String[]{"SET", "a1", "3"});
            sentinel(writer, out, "bs2", all, ab);
            // the NOLOOP client's own writes (a script's are the script client's, as in Redis) and another's
            // (the script alone: a script runs on the script thread, so the keys of the commands before it in the
            // same pipeline come in a message of their own, where Redis sends one for its whole event-loop turn)
            pipeline(noloop, out, new String[]{"SET", "n1", "1"}, new String[]{"SET", "n2", "1"});
            sentinel(writer, out, "n0", noloop, all);
            pipeline(noloop, out, new String[]{"EVAL", "redis.call('set','n4','1') redis.call('set','n3','1')", "0"});
            pipeline(writer, out, new String[]{"SET", "n5", "1"});
            sentinel(writer, out, "n6", noloop, all);
            // RESP2 redirect: a FLUSHALL's null invalidation, then the batch's keys
            pipeline(writer, out, new String[]{"MSET", "q2", "1", "q1", "2"}, new String[]{"DEL", "q2"},
                    new String[]{"FLUSHALL"}, new String[]{"SET", "q3", "x"});
            sentinel(writer, out, "q9", resp2, all);
        }
        return out;
    }

    /**
     * Keys a client read before switching to BCAST are not invalidated one by one any more, and NOLOOP spares
     * the writes of the client's own scripts in the default mode (Redis compares with its current client).
     */
    @Test
    void staleReadsAndScriptsUnderNoloopAsRedis() throws Exception {
        assertEquals(staleAndScripts(SERVERS.redis().port()), staleAndScripts(SERVERS.spinel().port()));
    }

    private static List<String> staleAndScripts(int port) throws Exception {
        List<String> out = new ArrayList<>();
        try (RawClient c = new RawClient(port); RawClient writer = new RawClient(port); RawClient d = new RawClient(port)) {
            c.call("HELLO", "3");
            out.add(text(c.call("CLIENT", "TRACKING", "ON")));
            out.add(text(c.call("GET", "stale")));
            out.add(text(c.call("CLIENT", "TRACKING", "OFF")));
            out.add(text(c.call("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "st")));
            out.add(text(writer.call("SET", "stale", "1")));
            sentinel(writer, out, "st-end", c);
            d.call("HELLO", "3");
            out.add(text(d.call("CLIENT", "TRACKING", "ON", "NOLOOP")));
            out.add(text(d.call("SET", "key1", "1")));
            out.add(text(d.call("GET", "key1")));
            out.add(text(d.call("EVAL", "return redis.call('set', 'key1', '2')", "1", "key1")));
            out.add(text(d.call("GET", "key1")));
            out.add(text(writer.call("SET", "key1", "3")));
            out.add(text(d.readReply())); // the other client's write is announced
        }
        return out;
    }

    /** A script that runs a read-only command tracks the keys it declared; EVAL_RO alone tracks nothing (Redis's call()). */
    @Test
    void scriptsTrackTheirDeclaredKeysAsRedis() throws Exception {
        assertEquals(scripts(SERVERS.redis().port()), scripts(SERVERS.spinel().port()));
    }

    private static List<String> scripts(int port) throws Exception {
        List<String> out = new ArrayList<>();
        try (RawClient r = new RawClient(port); RawClient writer = new RawClient(port)) {
            r.call("HELLO", "3");
            out.add(text(r.call("CLIENT", "TRACKING", "ON")));
            out.add(text(r.call("EVAL", "redis.call('set', 'k3', 'bar')", "2", "k1", "k2")));
            out.add(text(r.call("EVAL_RO", "redis.call('ping')", "2", "k1", "k2")));
            out.add(text(writer.call("MSET", "k2", "1", "k1", "1")));
            out.add(text(r.call("EVAL_RO", "redis.call('get', 'k3')", "2", "k1", "k2")));
            out.add(text(writer.call("MSET", "k2", "2", "k1", "2")));
            out.add(text(r.readReply()));
            out.add(text(r.readReply()));
            out.add(text(r.call("PING")));
        }
        return out;
    }

    /** Sends the commands in one write and reads their replies. */
    private static void pipeline(RawClient c, List<String> out, String[]... commands) throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (String[] cmd : commands) {
            b.writeBytes(RawClient.encode(Arrays.stream(cmd).map(a -> a.getBytes(StandardCharsets.UTF_8)).toList()));
        }
        c.sendRaw(b.toByteArray());
        for (int i = 0; i < commands.length; i++) {
            out.add(text(c.readReply()));
        }
    }

    /** Writes {@code key} in a batch of its own; each receiver's frames are read up to its invalidation. */
    private static void sentinel(RawClient writer, List<String> out, String key, RawClient... receivers) throws Exception {
        out.add(text(writer.call("SET", key, "x")));
        String marker = "$" + key.length() + "\r\n" + key + "\r\n";
        for (RawClient r : receivers) {
            while (true) {
                String frame = text(r.readReply());
                out.add(frame);
                if (frame.endsWith(marker)) {
                    break;
                }
            }
        }
    }

    private static String text(byte[] reply) {
        return new String(reply, StandardCharsets.ISO_8859_1);
    }
}
