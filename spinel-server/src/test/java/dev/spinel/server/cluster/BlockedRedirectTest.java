package dev.spinel.server.cluster;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.Await;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static dev.spinel.server.cluster.ClusterNodes.call;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Clients blocked on a slot this node stops serving, as Redis 7.0's clusterRedirectBlockedClientIfNeeded: the slot
 * given to another node (SETSLOT NODE) answers BRPOP and XREAD BLOCK with {@code -MOVED}, an unassigned slot with
 * {@code -CLUSTERDOWN Hash slot not served}, the cluster going down with {@code -CLUSTERDOWN The cluster is down};
 * the clients stay connected, clients blocked on slots still served and WAIT keep waiting. Then a primary that gives
 * its last slot away becomes a replica of the node that took it, as Redis's cluster-allow-replica-migration.
 */
class BlockedRedirectTest {
    private static final int X = 21501;
    private static final int Y = 21502;
    private SpinelServer x;
    private SpinelServer y;

    @AfterEach
    void stop() {
        ClusterNodes.closeAll(new SpinelServer[]{x, y});
    }

    private static SpinelServer start(int port) throws IOException {
        return ClusterNodes.startNode("blocked-redirect", port, ServerConfig.defaults());
    }

    private static String slot(String key) throws IOException {
        return call(X, "CLUSTER", "KEYSLOT", key).substring(1).trim();
    }

    private static void awaitBlocked(int n) throws Exception {
        Await.waitFor(() -> call(X, "INFO", "clients").contains("blocked_clients:" + n + "\r\n"), n + " blocked clients");
    }

    private static RawClient block(String... command) throws IOException {
        RawClient c = new RawClient(X);
        c.send(List.of(command).stream().map(s -> s.getBytes(StandardCharsets.UTF_8)).toList());
        return c;
    }

    private static String reply(RawClient c) throws IOException {
        return new String(c.readReply(), StandardCharsets.UTF_8);
    }

    @Test
    @Timeout(120)
    void blockedClientsOfASlotNoLongerServedAreRedirected() throws Exception {
        x = start(X);
        y = start(Y);
        assertEquals("+OK\r\n", call(X, "CLUSTER", "ADDSLOTSRANGE", "0", "16383"));
        assertEquals("+OK\r\n", call(Y, "CLUSTER", "MEET", "127.0.0.1", Integer.toString(X)));
        for (int port : new int[]{X, Y}) {
            Await.waitFor(() -> call(port, "CLUSTER", "INFO").contains("cluster_known_nodes:2\r\n"), port + " knowing 2 nodes");
        }
        String idY = call(Y, "CLUSTER", "MYID").split("\r\n")[1];
        String a = slot("{a}");
        String b = slot("{b}");
        String c = slot("{c}");
        String d = slot("{d}");
        try (RawClient pop = block("BRPOP", "{a}list", "0");
             RawClient read = block("XREAD", "BLOCK", "0", "STREAMS", "{a}stream", "$");
             RawClient zpop = block("BZPOPMIN", "{b}zset", "0");
             RawClient move = block("BLMOVE", "{c}src", "{c}dst", "LEFT", "RIGHT", "0");
             RawClient wait = block("WAIT", "1", "0")) {
            awaitBlocked(5);

            // the slot now Y's: its waiters are redirected there, the others keep waiting
            assertEquals("+OK\r\n", call(X, "CLUSTER", "SETSLOT", a, "NODE", idY));
            String moved = "-MOVED " + a + " 127.0.0.1:" + Y + "\r\n";
            assertEquals(moved, reply(pop));
            assertEquals(moved, reply(read));
            awaitBlocked(3);
            assertEquals("+PONG\r\n", pop.callString("PING")); // still connected, as Redis

            // a slot nobody serves (full coverage not required: the cluster stays up)
            assertEquals("+OK\r\n", call(X, "CONFIG", "SET", "cluster-require-full-coverage", "no"));
            assertEquals("+OK\r\n", call(X, "CLUSTER", "DELSLOTS", b));
            assertEquals("-CLUSTERDOWN Hash slot not served\r\n", reply(zpop));
            awaitBlocked(2);

            // the cluster down (a slot unserved with full coverage required): every wait on keys ends, WAIT's not
            assertEquals("+OK\r\n", call(X, "CONFIG", "SET", "cluster-require-full-coverage", "yes"));
            assertEquals("+OK\r\n", call(X, "CLUSTER", "DELSLOTS", d));
            assertEquals("-CLUSTERDOWN The cluster is down\r\n", reply(move));
            awaitBlocked(1);
            assertEquals("+PONG\r\n", move.callString("PING"));
        }

        // Y gives its only slot back: left without slots, it becomes X's replica (cluster-allow-replica-migration)
        String idX = call(X, "CLUSTER", "MYID").split("\r\n")[1];
        assertEquals("+OK\r\n", call(Y, "CLUSTER", "SETSLOT", a, "NODE", idX));
        for (int port : new int[]{X, Y}) {
            Await.waitFor(() -> call(port, "CLUSTER", "NODES").contains("slave " + idX), port + " showing Y as X's replica");
        }
        assertEquals("+OK\r\n", call(X, "CONFIG", "SET", "cluster-allow-replica-migration", "no"));
        assertEquals("*2\r\n$31\r\ncluster-allow-replica-migration\r\n$2\r\nno\r\n",
                call(X, "CONFIG", "GET", "cluster-allow-replica-migration"));
    }
}
