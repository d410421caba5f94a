package dev.spinel.server.diff;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * INFO's lazyfreed_objects as redis-server 7.0.15 counts it: UNLINK counts a value whose free effort exceeds 64
 * (a stream of many nodes, its groups and PEL; a hash-table set; a skip-list sorted set), not a small one nor
 * a small stream with a deleted group; DEL counts nothing unless lazyfree-lazy-user-del; FLUSHDB/FLUSHALL ASYNC
 * count every key; CONFIG RESETSTAT resets it.
 */
class LazyFreeDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    private static final Pattern FIELD = Pattern.compile("lazyfreed_objects:(\\d+)\r\n");

    @Test
    void lazyfreedObjectsCountedAsRedis() throws Exception {
        assertEquals(transcript(SERVERS.redis().port()), transcript(SERVERS.spinel().port()));
    }

    private static List<String> transcript(int port) throws Exception {
        List<String> out = new ArrayList<>();
        try (RawClient c = new RawClient(port)) {
            c.call("FLUSHALL");
            c.call("CONFIG", "RESETSTAT");
            c.call("CONFIG", "SET", "stream-node-max-entries", "5");
            try {
                for (int j = 0; j < 1000; j++) {
                    c.call("XADD", "stream", (j + 1) + "-0", j % 10 == 0 ? "bar" : "foo", String.valueOf(j));
                }
                c.call("XGROUP", "CREATE", "stream", "mygroup", "0");
                c.call("XREADGROUP", "GROUP", "mygroup", "Alice", "COUNT", "2", "STREAMS", "stream", ">");
                c.call("XDEL", "stream", "2-0");
                c.call("XACK", "stream", "mygroup", "1-0");
                out.add(text(c.call("UNLINK", "stream")));
                out.add(lazyfreed(c));
                c.call("XADD", "s", "*", "a", "b");
                c.call("XGROUP", "CREATE", "s", "bla", "$");
                c.call("XGROUP", "DESTROY", "s", "bla");
                out.add(text(c.call("UNLINK", "s")));
                out.add(lazyfreed(c));
                List<String> members = new ArrayList<>(List.of("SADD", "big"));
                List<String> scored = new ArrayList<>(List.of("ZADD", "z"));
                for (int i = 0; i < 200; i++) {
                    members.add("m" + i);
                    scored.add(String.valueOf(i));
                    scored.add("m" + i);
                }
                c.call(members.toArray(String[]::new));
                c.call(scored.toArray(String[]::new));
                c.call("SADD", "small", "1", "2", "3");
                out.add(text(c.call("UNLINK", "big", "small", "z", "absent")));
                out.add(lazyfreed(c));
                c.call(members.toArray(String[]::new));
                out.add(text(c.call("DEL", "big")));
                out.add(lazyfreed(c));
                c.call("CONFIG", "SET", "lazyfree-lazy-user-del", "yes");
                c.call(members.toArray(String[]::new));
                out.add(text(c.call("DEL", "big")));
                out.add(lazyfreed(c));
                c.call("MSET", "a", "1", "b", "2", "c", "3");
                c.call("SELECT", "1");
                c.call("SET", "d", "4");
                c.call("SELECT", "0");
                out.add(text(c.call("FLUSHDB", "ASYNC")));
                out.add(lazyfreed(c));
                c.call("SET", "e", "5");
                out.add(text(c.call("FLUSHALL", "ASYNC")));
                out.add(lazyfreed(c));
                c.call("SET", "f", "6");
                out.add(text(c.call("FLUSHALL", "SYNC")));
                out.add(lazyfreed(c));
                c.call("CONFIG", "RESETSTAT");
                out.add(lazyfreed(c));
            } finally {
                c.call("CONFIG", "SET", "stream-node-max-entries", "100");
                c.call("CONFIG", "SET", "lazyfree-lazy-user-del", "no");
            }
        }
        return out;
    }

    /**
     * Expiry and eviction free asynchronously under lazyfree-lazy-expire / lazyfree-lazy-eviction: a big value
     * expired lazily (read after its time), actively (the cron), by EXPIRE with a time in the past, or evicted,
     * counts; a small one, or any with the option off, does not.
     */
    @Test
    void expiredAndEvictedValuesCountedAsRedis() throws Exception {
        assertEquals(expiryTranscript(SERVERS.redis().port()), expiryTranscript(SERVERS.spinel().port()));
    }

    private static List<String> expiryTranscript(int port) throws Exception {
        List<String> out = new ArrayList<>();
        try (RawClient c = new RawClient(port)) {
            c.call("FLUSHALL");
            c.call("CONFIG", "RESETSTAT");
            try {
                for (String lazy : new String[] {"no", "yes"}) {
                    c.call("CONFIG", "SET", "lazyfree-lazy-expire", lazy);
                    c.call("CONFIG", "SET", "lazyfree-lazy-eviction", lazy);
                    bigSet(c, "lazy");
                    c.call("SET", "small", "x");
                    c.call("PEXPIRE", "lazy", "1");
                    c.call("PEXPIRE", "small", "1");
                    Thread.sleep(10);
                    out.add(text(c.call("EXISTS", "lazy", "small")));
                    out.add(lazyfreed(c));
                    bigSet(c, "active");
                    c.call("PEXPIRE", "active", "1");
                    for (int i = 0; i < 300 && !text(c.call("DBSIZE")).equals(":0\r\n"); i++) {
                        Thread.sleep(10); // the active expiry cycle deletes it
                    }
                    out.add(text(c.call("DBSIZE")));
                    out.add(lazyfreed(c));
                    bigSet(c, "past");
                    out.add(text(c.call("EXPIRE", "past", "0")));
                    out.add(lazyfreed(c));
                    bigSet(c, "evicted");
                    c.call("CONFIG", "SET", "maxmemory-policy", "allkeys-random");
                    c.call("CONFIG", "SET", "maxmemory", "1");
                    c.call("CONFIG", "SET", "maxmemory", "0");
                    out.add(text(c.call("DBSIZE")));
                    out.add(lazyfreed(c));
                }
            } finally {
                c.call("CONFIG", "SET", "maxmemory", "0");
                c.call("CONFIG", "SET", "maxmemory-policy", "noeviction");
                c.call("CONFIG", "SET", "lazyfree-lazy-expire", "no");
                c.call("CONFIG", "SET", "lazyfree-lazy-eviction", "no");
            }
        }
        return out;
    }

    /**
     * Values a command overwrites or deletes as a side effect are freed asynchronously under
     * lazyfree-lazy-server-del (Redis's dbOverwrite and dbDelete): SET and MSET over a big set, a *STORE over
     * it or deleting it (empty result), RENAME, COPY REPLACE and RESTORE REPLACE onto it, SORT STORE of nothing.
     */
    @Test
    void overwrittenValuesCountedAsRedis() throws Exception {
        assertEquals(serverDelTranscript(SERVERS.redis().port()), serverDelTranscript(SERVERS.spinel().port()));
    }

    private static List<String> serverDelTranscript(int port) throws Exception {
        List<String> out = new ArrayList<>();
        try (RawClient c = new RawClient(port)) {
            c.call("FLUSHALL");
            c.call("CONFIG", "RESETSTAT");
            try {
                for (String lazy : new String[] {"no", "yes"}) {
                    c.call("CONFIG", "SET", "lazyfree-lazy-server-del", lazy);
                    c.call("SADD", "small", "a", "b");
                    byte[] dump = c.call("DUMP", "small");
                    bigSet(c, "big");
                    out.add(text(c.call("SET", "big", "x")));
                    out.add(lazyfreed(c));
                    bigSet(c, "big2");
                    out.add(text(c.call("MSET", "big2", "x", "other", "y")));
                    out.add(lazyfreed(c));
                    bigSet(c, "dst");
                    out.add(text(c.call("SUNIONSTORE", "dst", "small")));
                    out.add(lazyfreed(c));
                    c.call("DEL", "dst");
                    bigSet(c, "dst");
                    out.add(text(c.call("SINTERSTORE", "dst", "small", "absent")));
                    out.add(lazyfreed(c));
                    bigSet(c, "dst");
                    c.call("SET", "src", "v");
                    out.add(text(c.call("RENAME", "src", "dst")));
                    out.add(lazyfreed(c));
                    c.call("DEL", "dst");
                    bigSet(c, "dst");
                    out.add(text(c.call("COPY", "small", "dst", "REPLACE")));
                    out.add(lazyfreed(c));
                    c.call("DEL", "dst");
                    bigSet(c, "dst");
                    out.add(text(c.call(List.of("RESTORE".getBytes(StandardCharsets.US_ASCII), "dst".getBytes(StandardCharsets.US_ASCII),
                            "0".getBytes(StandardCharsets.US_ASCII), bulk(dump), "REPLACE".getBytes(StandardCharsets.US_ASCII)))));
                    out.add(lazyfreed(c));
                    c.call("DEL", "dst");
                    bigSet(c, "dst");
                    out.add(text(c.call("SORT", "absent", "STORE", "dst")));
                    out.add(lazyfreed(c));
                    c.call("FLUSHALL");
                }
            } finally {
                c.call("CONFIG", "SET", "lazyfree-lazy-server-del", "no");
            }
        }
        return out;
    }

    /**
     * Sets a command builds and drops or empties under lazyfree-lazy-server-del: SUNION's and SDIFF's temporary
     * result (not SINTER's, which replies as it goes, nor a STORE form's, which is kept); SPOP of the whole set
     * (its temporary SUNION and the deleted key) and SPOP of most of it (Redis's case 3 keeps the rest in a new
     * set and frees the old); lazyfree-lazy-user-del alone counts none of them.
     */
    @Test
    void setCommandTemporariesCountedAsRedis() throws Exception {
        assertEquals(setTemporariesTranscript(SERVERS.redis().port()), setTemporariesTranscript(SERVERS.spinel().port()));
    }

    private static List<String> setTemporariesTranscript(int port) throws Exception {
        List<String> out = new ArrayList<>();
        try (RawClient c = new RawClient(port)) {
            c.call("FLUSHALL");
            c.call("CONFIG", "RESETSTAT");
            try {
                for (String[] mode : new String[][] {{"no", "no"}, {"yes", "no"}, {"no", "yes"}}) {
                    c.call("CONFIG", "SET", "lazyfree-lazy-server-del", mode[0]);
                    c.call("CONFIG", "SET", "lazyfree-lazy-user-del", mode[1]);
                    bigSet(c, "a");
                    bigSet(c, "b");
                    c.call("SADD", "ints", "1", "2", "3");
                    c.call("SUNION", "a", "b");
                    out.add(lazyfreed(c));
                    c.call("SUNION", "ints", "absent");
                    out.add(lazyfreed(c));
                    c.call("SDIFF", "a", "b");
                    out.add(lazyfreed(c));
                    c.call("SDIFF", "a", "absent");
                    out.add(lazyfreed(c));
                    c.call("SINTER", "a", "b");
                    out.add(lazyfreed(c));
                    c.call("SMEMBERS", "a");
                    out.add(lazyfreed(c));
                    out.add(text(c.call("SUNIONSTORE", "fresh", "a", "b")));
                    out.add(lazyfreed(c));
                    c.call("SPOP", "a", "500");
                    out.add(text(c.call("EXISTS", "a")));
                    out.add(lazyfreed(c));
                    bigSet(c, "a");
                    c.call("SPOP", "a", "190"); // 10 left: 10 * 5 <= 190, case 3
                    out.add(text(c.call("SCARD", "a")));
                    out.add(lazyfreed(c));
                    bigSet(c, "b");
                    c.call("SPOP", "b", "150"); // 50 left: 50 * 5 > 150, popped one by one
                    out.add(text(c.call("SCARD", "b")));
                    out.add(lazyfreed(c));
                    c.call("SPOP", "ints", "3");
                    out.add(lazyfreed(c));
                    c.call("FLUSHALL");
                }
            } finally {
                c.call("CONFIG", "SET", "lazyfree-lazy-server-del", "no");
                c.call("CONFIG", "SET", "lazyfree-lazy-user-del", "no");
            }
        }
        return out;
    }

    /** The payload of a bulk-string reply ($n CRLF payload CRLF). */
    private static byte[] bulk(byte[] reply) {
        int start = 0;
        while (reply[start] != '\n') {
            start++;
        }
        return Arrays.copyOfRange(reply, start + 1, reply.length - 2);
    }

    /** A set of 200 members: a hash table, whose free effort (200) exceeds Redis's threshold of 64. */
    private static void bigSet(RawClient c, String key) throws Exception {
        List<String> members = new ArrayList<>(List.of("SADD", key));
        for (int i = 0; i < 200; i++) {
            members.add("m" + i);
        }
        c.call(members.toArray(String[]::new));
    }

    private static String lazyfreed(RawClient c) throws Exception {
        // Redis frees in a background thread: wait until nothing is pending
        for (int i = 0; i < 100; i++) {
            String info = text(c.call("INFO", "memory"));
            if (info.contains("lazyfree_pending_objects:0\r\n")) {
                Matcher m = FIELD.matcher(info);
                return m.find() ? m.group(1) : "?";
            }
            Thread.sleep(20);
        }
        return "pending";
    }

    private static String text(byte[] reply) {
        return new String(reply, StandardCharsets.ISO_8859_1);
    }
}
