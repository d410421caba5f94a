package dev.spinel.server.diff;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * MIGRATE byte for byte against redis-server 7.0, both ways: the same session of commands is run from a
 * redis-server to a redis-server (the reference), from Spinel to a redis-server (Spinel's MIGRATE and DUMP
 * payloads) and from a redis-server to Spinel (Spinel's RESTORE of Redis's payloads, SELECT, AUTH), on fresh
 * servers each time, and every reply and both datasets' DEBUG DIGEST must equal the reference's.
 */
class MigrateDiffTest {
    private static final Pattern MIGRATE_STATS = Pattern.compile("(cmdstat_migrate:calls=\\d+),usec=\\d+,usec_per_call=[\\d.]+(,.*)");
    private static final Pattern CACHED = Pattern.compile("migrate_cached_sockets:(\\d+)");
    private final List<AutoCloseable> opened = new ArrayList<>();

    /** One command of the session: on the source or the target; PTTL replies reduced to their sign. */
    private record Step(boolean onTarget, String... args) {
    }

    private static Step src(String... args) {
        return new Step(false, args);
    }

    private static Step dst(String... args) {
        return new Step(true, args);
    }

    private static final String H = "127.0.0.1";
    private static final List<Step> SESSION = List.of(
            src("MIGRATE", H, "$PORT", "nokey", "0", "1000"),
            src("SET", "s", "v"), src("RPUSH", "l", "a", "b", "1"), src("HSET", "h", "f", "v", "g", "2"),
            src("SADD", "set", "a", "1", "2"), src("ZADD", "z", "1", "a", "2.5", "b"), src("XADD", "x", "1-1", "f", "v"),
            src("SET", "n", "12345"), src("SADD", "iset", "1", "2", "3"), src("SET", "big", "x".repeat(100_000)),
            src("MIGRATE", H, "$PORT", "s", "0", "1000"),
            dst("GET", "s"), src("EXISTS", "s"),
            src("MIGRATE", H, "$PORT", "", "0", "1000", "KEYS", "l", "h", "set", "missing", "z", "x", "n", "iset", "big"),
            src("DBSIZE"), dst("DBSIZE"), dst("DEBUG", "DIGEST"), dst("LRANGE", "l", "0", "-1"), dst("XRANGE", "x", "-", "+"),
            // an existing key on the target: BUSYKEY unless REPLACE
            src("SET", "s", "v2"), src("MIGRATE", H, "$PORT", "s", "0", "1000"), src("EXISTS", "s"),
            src("MIGRATE", H, "$PORT", "s", "0", "1000", "REPLACE"), dst("GET", "s"), src("EXISTS", "s"),
            // COPY keeps the source's key
            src("SET", "c", "v"), src("MIGRATE", H, "$PORT", "c", "0", "1000", "COPY"), src("GET", "c"), dst("GET", "c"),
            src("MIGRATE", H, "$PORT", "c", "0", "1000", "COPY"), src("SET", "c", "v3"),
            src("MIGRATE", H, "$PORT", "c", "0", "1000", "COPY", "REPLACE"), dst("GET", "c"),
            // another db; a db the target does not have, then SELECT sent again
            src("SET", "d", "v"), src("MIGRATE", H, "$PORT", "d", "3", "1000"), dst("SELECT", "3"), dst("GET", "d"),
            dst("SELECT", "0"), src("SET", "d2", "v"), src("MIGRATE", H, "$PORT", "d2", "99", "1000"),
            src("MIGRATE", H, "$PORT", "d2", "3", "1000"), dst("SELECT", "3"), dst("DBSIZE"), dst("SELECT", "0"),
            // the TTL goes along
            src("SET", "t", "v", "PX", "100000"), src("MIGRATE", H, "$PORT", "t", "0", "1000"), dst("PTTL", "t"),
            // AUTH and AUTH2
            src("SET", "a1", "v"), src("MIGRATE", H, "$PORT", "a1", "0", "1000", "AUTH", "nopass"),
            src("MIGRATE", H, "$PORT", "a1", "0", "1000", "AUTH2", "nouser", "pw"),
            dst("ACL", "SETUSER", "mig", "on", ">pw", "~*", "+@all"),
            src("MIGRATE", H, "$PORT", "a1", "0", "1000", "AUTH2", "mig", "pw"), dst("EXISTS", "a1"),
            dst("CONFIG", "SET", "requirepass", "pw"), src("SET", "a2", "v"),
            src("MIGRATE", H, "$PORT", "a2", "0", "1000", "AUTH", "pw"), dst("CONFIG", "SET", "requirepass", ""),
            dst("EXISTS", "a2"),
            // argument errors
            src("MIGRATE", H, "$PORT", "k", "0", "1000", "KEYS", "a"), src("MIGRATE", H, "$PORT", "", "0", "1000", "KEYS"),
            src("MIGRATE", H, "$PORT", "a2", "0", "abc"), src("MIGRATE", H, "$PORT", "a2", "x", "1000"),
            src("MIGRATE", H, "$PORT", "a2", "0", "1000", "AUTH"), src("MIGRATE", H, "$PORT", "a2", "0", "1000", "AUTH2", "u"),
            src("MIGRATE", H, "$PORT", "a2", "0", "1000", "FOO"), src("MIGRATE", H, "$PORT"),
            // a target that is not there, one that never answers
            src("SET", "k", "v"), src("MIGRATE", H, "$DEAD", "k", "0", "300"), src("MIGRATE", H, "$SILENT", "k", "0", "300"),
            src("EXISTS", "k"), src("INFO", "stats"), src("INFO", "commandstats"), src("INFO", "errorstats"),
            src("DEBUG", "DIGEST"), dst("DEBUG", "DIGEST"),
            src("COMMAND", "INFO", "MIGRATE", "RESTORE-ASKING"),
            src("COMMAND", "GETKEYS", "MIGRATE", H, "1", "k", "0", "1"),
            src("COMMAND", "GETKEYS", "MIGRATE", H, "1", "", "0", "1", "AUTH2", "u", "p", "KEYS", "a", "b"));

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : opened) {
            c.close();
        }
        opened.clear();
    }

    @Test
    void spinelToRedisAndRedisToSpinelAnswerAsRedisToRedis() throws Exception {
        List<String> reference = session(redis(), redis());
        sameReplies(reference, session(spinel(), redis()), "Spinel migrating to redis-server");
        sameReplies(reference, session(redis(), spinel()), "redis-server migrating to Spinel");
        sameReplies(reference, session(spinel(), spinel()), "Spinel migrating to Spinel");
    }

    private static void sameReplies(List<String> expected, List<String> actual, String what) {
        for (int i = 0; i < expected.size(); i++) {
            assertEquals(expected.get(i), actual.get(i), what);
        }
    }

    /** Redis's dump.tcl: a cached connection counts in INFO and is closed after 10 s unused. */
    @Test
    void cachedConnectionIsReusedThenClosedWhenIdle() throws Exception {
        int target = redis();
        int source = spinel();
        try (RawClient s = new RawClient(source)) {
            assertEquals(0, cached(s));
            s.call("SET", "k1", "v");
            s.call("SET", "k2", "v");
            assertEquals("+OK\r\n", s.callString("MIGRATE", H, Integer.toString(target), "k1", "0", "1000"));
            assertEquals(1, cached(s));
            assertEquals("+OK\r\n", s.callString("MIGRATE", H, Integer.toString(target), "k2", "0", "1000"));
            assertEquals(1, cached(s));
            try (RawClient t = new RawClient(target)) {
                // one connection from the source besides this one: the cached one was reused
                String clients = t.callString("CLIENT", "LIST");
                assertEquals(2, clients.split(" addr=", -1).length - 1, clients);
            }
            long deadline = System.nanoTime() + 20_000_000_000L;
            while (cached(s) != 0 && System.nanoTime() < deadline) {
                Thread.sleep(500);
            }
            assertEquals(0, cached(s));
        }
    }

    /** MIGRATE is logged and replicated as a DEL of the keys moved, and not at all with COPY. */
    @Test
    void replicasLoseTheMovedKeysAsOnRedis() throws Exception {
        assertEquals(replicaView(redis()), replicaView(spinel()));
    }

    private List<String> replicaView(int source) throws Exception {
        int target = redis();
        int replica = redis();
        List<String> out = new ArrayList<>();
        try (RawClient s = new RawClient(source); RawClient r = new RawClient(replica)) {
            r.call("REPLICAOF", H, Integer.toString(source));
            s.call("MSET", "a", "1", "b", "2", "c", "3");
            long synced = System.nanoTime() + 20_000_000_000L;
            // the full sync done first, so what follows reaches the replica through the stream
            while (!r.callString("GET", "c").equals("$1\r\n3\r\n") && System.nanoTime() < synced) {
                Thread.sleep(50);
            }
            s.call("MIGRATE", H, Integer.toString(target), "", "0", "1000", "KEYS", "a", "b");
            s.call("MIGRATE", H, Integer.toString(target), "c", "0", "1000", "COPY");
            s.call("SET", "done", "1");
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (!r.callString("GET", "done").equals("$1\r\n1\r\n") && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            out.add(r.callString("KEYS", "*").lines().sorted().toList().toString());
            out.add(r.callString("DBSIZE"));
        }
        return out;
    }

    private static int cached(RawClient c) throws Exception {
        Matcher m = CACHED.matcher(c.callString("INFO", "stats"));
        assertTrue(m.find());
        return Integer.parseInt(m.group(1));
    }

    private List<String> session(int source, int target) throws Exception {
        int dead;
        try (ServerSocket free = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            dead = free.getLocalPort();
        }
        // accepts connections (the kernel's backlog) but never reads nor answers
        ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        opened.add(silent);
        List<String> out = new ArrayList<>();
        try (RawClient s = new RawClient(source); RawClient t = new RawClient(target)) {
            for (Step step : SESSION) {
                String[] args = step.args().clone();
                for (int i = 0; i < args.length; i++) {
                    args[i] = args[i].replace("$PORT", Integer.toString(target)).replace("$DEAD", Integer.toString(dead))
                            .replace("$SILENT", Integer.toString(silent.getLocalPort()));
                }
                String reply = new String((step.onTarget() ? t : s).call(args), StandardCharsets.UTF_8);
                if (args[0].equals("PTTL")) {
                    reply = reply.startsWith(":") && Long.parseLong(reply.substring(1).trim()) > 0 ? "positive" : reply;
                } else if (args[0].equals("INFO") && args[1].equals("commandstats")) {
                    Matcher m = MIGRATE_STATS.matcher(reply);
                    reply = m.find() ? m.group(1) + m.group(2) : "no cmdstat_migrate";
                } else if (args[0].equals("INFO") && args[1].equals("errorstats")) {
                    reply = reply.substring(reply.indexOf("# Errorstats"));
                } else if (args[0].equals("INFO")) {
                    Matcher m = CACHED.matcher(reply);
                    reply = m.find() ? m.group() : "no migrate_cached_sockets";
                }
                StringBuilder line = new StringBuilder();
                for (String arg : step.args()) {
                    line.append(arg.length() > 20 ? arg.substring(0, 20) + "..." : arg).append(' ');
                }
                out.add(line + "-> " + reply);
            }
        }
        return out;
    }

    // no repl-diskless-sync-delay: replicasLoseTheMovedKeysAsOnRedis would wait 5 s for each full sync
    private int redis() {
        RedisServerProcess p = RedisServerProcess.start("--enable-debug-command", "yes", "--repl-diskless-sync-delay", "0");
        opened.add(p);
        return p.port();
    }

    private int spinel() {
        SpinelServer s = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("enable-debug-command", "yes")
                .with("repl-diskless-sync-delay", "0"));
        opened.add(s);
        return s.port();
    }
}
