package dev.spinel.server.diff;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * PUBLISH and SPUBLISH reach the subscribers of a replica, as Redis 7.0 propagates them in the replication
 * stream (PROPAGATE_REPL: not in the AOF). The same session against a redis-server master and a Spinel master,
 * each with a redis-server replica and a Spinel replica; the messages the replicas' subscribers receive must
 * match.
 */
class PublishReplicationDiffTest {
    private final List<AutoCloseable> opened = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = opened.size() - 1; i >= 0; i--) {
            opened.get(i).close();
        }
        opened.clear();
    }

    @Test
    void replicasSubscribersReceiveWhatTheMasterPublishes() throws Exception {
        List<String> reference = received(redis(), redis());
        assertEquals(List.of("message ch hello", "smessage sch world"), reference);
        assertEquals(reference, received(spinel(), redis()), "Spinel master, redis-server replica");
        assertEquals(reference, received(spinel(), spinel()), "Spinel master, Spinel replica");
        assertEquals(reference, received(redis(), spinel()), "redis-server master, Spinel replica");
    }

    private List<String> received(int master, int replica) throws Exception {
        List<String> out = new ArrayList<>();
        try (RawClient m = new RawClient(master); RawClient r = new RawClient(replica)) {
            r.call("REPLICAOF", "127.0.0.1", Integer.toString(master));
            m.call("SET", "synced", "1");
            long deadline = System.nanoTime() + 20_000_000_000L;
            while (!r.callString("GET", "synced").equals("$1\r\n1\r\n")) {
                assertTrue(System.nanoTime() < deadline, "the replica never synced");
                Thread.sleep(50);
            }
            Socket socket = new Socket();
            socket.connect(new InetSocketAddress("127.0.0.1", replica));
            socket.setSoTimeout(3000);
            try (RawClient sub = new RawClient(socket)) {
                sub.call("SUBSCRIBE", "ch");
                sub.call("SSUBSCRIBE", "sch");
                m.call("PUBLISH", "ch", "hello");
                m.call("SPUBLISH", "sch", "world");
                for (int i = 0; i < 2; i++) {
                    try {
                        out.add(words(sub.readReply()));
                    } catch (SocketTimeoutException e) {
                        out.add("nothing within 3 s");
                    }
                }
            }
        }
        return out;
    }

    /** The bulk strings of an array reply, joined by spaces. */
    private static String words(byte[] reply) {
        String[] lines = new String(reply, StandardCharsets.UTF_8).split("\r\n");
        List<String> words = new ArrayList<>();
        for (int i = 1; i < lines.length; i++) {
            if (!lines[i].startsWith("$") && !lines[i].startsWith("*")) {
                words.add(lines[i]);
            }
        }
        return String.join(" ", words);
    }

    // no repl-diskless-sync-delay on either kind of server: each of the four pairs would wait 5 s for its full sync
    private int redis() {
        RedisServerProcess p = RedisServerProcess.start("--repl-diskless-sync-delay", "0");
        opened.add(p);
        return p.port();
    }

    private int spinel() {
        SpinelServer s = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("repl-diskless-sync-delay", "0"));
        opened.add(s);
        return s.port();
    }
}
