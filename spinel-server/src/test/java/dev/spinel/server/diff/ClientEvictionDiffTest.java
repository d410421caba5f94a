package dev.spinel.server.diff;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Redis 7.0's client eviction ({@code maxmemory-clients}, unit/client-eviction): a client whose query buffer,
 * queued MULTI commands or watched keys pass the limit is disconnected and counted in {@code evicted_clients},
 * a CLIENT NO-EVICT client is not, and lowering the limit with CONFIG SET evicts at once. Spinel accepted the
 * setting and evicted nothing.
 */
class ClientEvictionDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide("enable-debug-command", "yes");

    @Test
    void largeQueryBufferIsEvictedNoEvictIsNot() throws Exception {
        assertEquals(queryBuffer(SERVERS.redis().port()), queryBuffer(SERVERS.spinel().port()));
    }

    @Test
    void queuedCommandsAndWatchedKeysCount() throws Exception {
        assertEquals(stateGrowth(SERVERS.redis().port()), stateGrowth(SERVERS.spinel().port()));
    }

    @Test
    void lowerLimitEvictsLargestFirstAtOnce() throws Exception {
        assertEquals(lowerLimit(SERVERS.redis().port()), lowerLimit(SERVERS.spinel().port()));
    }

    @Test
    void messagesPushedToASubscriberEvictItWithoutTheCron() throws Exception {
        assertEquals(pushed(SERVERS.redis().port()), pushed(SERVERS.spinel().port()));
    }

    private static List<String> pushed(int port) throws Exception {
        List<String> out = new ArrayList<>();
        try (RawClient r = new RawClient(port); RawClient sub = new RawClient(port)) {
            r.call("CONFIG", "RESETSTAT");
            r.call("CLIENT", "NO-EVICT", "on");
            out.add(text(r.call("CONFIG", "SET", "maxmemory-clients", "1000000")));
            out.add(text(sub.call("CLIENT", "SETNAME", "sub")));
            out.add(text(sub.call("SUBSCRIBE", "ch")));
            out.add(text(r.call("DEBUG", "PAUSE-CRON", "1"))); // only the push itself may find it over the limit
            String message = "m".repeat(100_000);
            boolean listed = true;
            for (int i = 0; i < 200 && listed; i++) {
                r.call("PUBLISH", "ch", message); // the subscriber never reads
                listed = text(r.call("CLIENT", "LIST")).contains("name=sub");
            }
            out.add("subscriber evicted: " + !listed);
            out.add(info(r, "evicted_clients"));
            out.add(text(r.call("DEBUG", "PAUSE-CRON", "0")));
            out.add(text(r.call("CONFIG", "SET", "maxmemory-clients", "0")));
        }
        return out;
    }

    private static List<String> queryBuffer(int port) throws Exception {
        List<String> out = new ArrayList<>();
        try (RawClient r = new RawClient(port); RawClient big = new RawClient(port); RawClient kept = new RawClient(port)) {
            r.call("CONFIG", "RESETSTAT");
            r.call("CLIENT", "NO-EVICT", "on");
            out.add(text(r.call("CONFIG", "SET", "maxmemory-clients", "3000000")));
            out.add(text(big.call("CLIENT", "SETNAME", "big")));
            out.add(text(kept.call("CLIENT", "SETNAME", "kept")));
            out.add(text(kept.call("CLIENT", "NO-EVICT", "on")));
            // an argument of 3 MB not yet complete: only the query buffer holds it
            sendEvenIfCut(big, partialRequest(3_100_000));
            out.add("big closed: " + big.isClosedByServer(10_000));
            sendEvenIfCut(kept, partialRequest(3_100_000));
            Thread.sleep(300);
            out.add("kept listed: " + text(r.call("CLIENT", "LIST")).contains("name=kept"));
            out.add(info(r, "evicted_clients"));
            out.add(text(r.call("CONFIG", "SET", "maxmemory-clients", "0")));
        }
        return out;
    }

    private static List<String> stateGrowth(int port) throws Exception {
        List<String> out = new ArrayList<>();
        try (RawClient r = new RawClient(port); RawClient multi = new RawClient(port); RawClient watch = new RawClient(port)) {
            r.call("CONFIG", "RESETSTAT");
            r.call("CLIENT", "NO-EVICT", "on");
            out.add(text(r.call("CONFIG", "SET", "maxmemory-clients", "200000")));
            out.add(text(multi.call("MULTI")));
            String value = "v".repeat(50_000);
            boolean closed = false;
            for (int i = 0; i < 10 && !closed; i++) {
                closed = !answers(multi, List.of(List.of(bytes("SET"), bytes("k"), bytes(value))));
            }
            out.add("multi client closed: " + closed);
            closed = false;
            for (int i = 0; i < 20_000 && !closed; i += 200) {
                List<List<byte[]>> batch = new ArrayList<>();
                for (int j = i; j < i + 200; j++) {
                    batch.add(List.of(bytes("WATCH"), bytes("key:" + j)));
                }
                closed = !answers(watch, batch);
            }
            out.add("watch client closed: " + closed);
            out.add(info(r, "evicted_clients"));
            out.add(text(r.call("CONFIG", "SET", "maxmemory-clients", "0")));
        }
        return out;
    }

    private static List<String> lowerLimit(int port) throws Exception {
        List<String> out = new ArrayList<>();
        List<RawClient> clients = new ArrayList<>();
        try (RawClient r = new RawClient(port)) {
            r.call("CONFIG", "RESETSTAT");
            r.call("CLIENT", "NO-EVICT", "on");
            int[] sizes = {100_000, 400_000, 1_600_000};
            for (int i = 0; i < sizes.length; i++) {
                RawClient c = new RawClient(port);
                clients.add(c);
                c.call("CLIENT", "SETNAME", "c" + i);
                c.sendRaw(partialRequest(sizes[i]));
            }
            Thread.sleep(500);
            // room for every client but the largest
            out.add(text(r.call("CONFIG", "SET", "maxmemory-clients", "1200000")));
            String list = text(r.call("CLIENT", "LIST"));
            out.add("listed: " + list.contains("name=c0 ") + " " + list.contains("name=c1 ") + " " + list.contains("name=c2 "));
            out.add(info(r, "evicted_clients"));
            out.add(text(r.call("CONFIG", "SET", "maxmemory-clients", "0")));
        } finally {
            for (RawClient c : clients) {
                c.close();
            }
        }
        return out;
    }

    /** Sends {@code bytes}; the server may close the connection (evict the client) before it has them all. */
    private static void sendEvenIfCut(RawClient c, byte[] bytes) {
        try {
            c.sendRaw(bytes);
        } catch (IOException e) {
            // evicted while sending: what the transcript checks next
        }
    }

    /** Sends the requests and reads their replies: false once the server closed the connection. */
    private static boolean answers(RawClient c, List<List<byte[]>> requests) {
        try {
            for (List<byte[]> req : requests) {
                c.send(req);
            }
            for (int i = 0; i < requests.size(); i++) {
                c.readReply();
            }
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** A one-argument request whose argument has {@code n} bytes, all but its end sent. */
    private static byte[] partialRequest(int n) {
        byte[] head = ("*2\r\n$" + n + "\r\n").getBytes(StandardCharsets.US_ASCII);
        byte[] b = new byte[head.length + n - 1];
        System.arraycopy(head, 0, b, 0, head.length);
        Arrays.fill(b, head.length, b.length, (byte) 'v');
        return b;
    }

    private static String info(RawClient r, String field) throws Exception {
        for (String line : text(r.call("INFO", "stats")).split("\r\n")) {
            if (line.startsWith(field + ":")) {
                return line;
            }
        }
        return field + " missing";
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] reply) {
        return new String(reply, StandardCharsets.ISO_8859_1);
    }
}
