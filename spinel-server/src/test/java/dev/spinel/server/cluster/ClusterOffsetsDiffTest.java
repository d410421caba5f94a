package dev.spinel.server.cluster;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.spinel.server.cluster.ClusterFailoverTest.await;

/**
 * Every node knows the others' replication offsets (Redis gossips them in its bus pings; Spinel's nodes ask them
 * on their liveness checks, {@code PeerWatch}), side by side with three redis-server 7.0.15 nodes: primaries A and
 * B, then C made A's replica. On every node CLUSTER SHARDS shows C {@code loading} (offset 0) until it is synced and
 * its offset is above 0, then {@code online}, and CLUSTER SLOTS lists C only then (Redis's isReplicaAvailable); after a
 * write on A every node shows A's and C's offsets equal; after a full resync that C loads slowly
 * ({@code key-load-delay}) every node shows C {@code loading} and leaves it out of CLUSTER SLOTS, then
 * {@code online} again. The replies of every node are compared with Redis's with ids, ports and offsets replaced
 * by placeholders (and SHARDS' shards sorted: Redis lists them in its dict's order).
 */
class ClusterOffsetsDiffTest {
    private static final int[] REDIS = {22694, 22695, 22696};
    private static final int[] SPINEL = {22697, 22698, 22699};
    private static final String TIMEOUT = "2000";

    private final List<RedisServerProcess> redis = new ArrayList<>();
    private final List<SpinelServer> spinel = new ArrayList<>();

    @AfterEach
    void stop() {
        ClusterNodes.closeAll(spinel.toArray(SpinelServer[]::new));
        redis.forEach(RedisServerProcess::close);
    }

    @Test
    @Timeout(300)
    void everyNodeKnowsTheReplicasOffsetAsRedis() throws Exception {
        for (int port : REDIS) {
            redis.add(RedisServerProcess.startOn(port, "--cluster-enabled", "yes", "--cluster-node-timeout", TIMEOUT,
                    "--repl-diskless-sync-delay", "0"));
        }
        for (int port : SPINEL) {
            spinel.add(ClusterNodes.startNode("offsets-" + port, port,
                    ServerConfig.defaults().with("cluster-node-timeout", TIMEOUT)));
        }
        List<String> r = transcript(REDIS);
        List<String> s = transcript(SPINEL);
        ClusterNodes.assertSameTranscripts("cluster-offsets", r, s);
    }

    private static List<String> transcript(int[] p) throws Exception {
        List<String> out = new ArrayList<>();
        ClusterNodes.formThreeNodes(p);
        String[] ids = new String[3];
        for (int i = 0; i < 3; i++) {
            ids[i] = ClusterNodes.call(p[i], "CLUSTER", "MYID").split("\r\n")[1];
        }
        View v = new View(p, ids, out);
        v.all("three primaries");

        out.add(v.normalize(ClusterNodes.call(p[2], "CLUSTER", "REPLICATE", ids[0])));
        // Redis's replica is at offset 0 until its primary's first PING into the stream (repl-ping-replica-period)
        v.await("C online everywhere", () -> v.everywhere(ids[2], "online") && v.listed(true));
        v.all("C synced");

        out.add(v.normalize(ClusterNodes.call(p[0], "SET", "{b}key", "x")));
        v.await("A's and C's offsets equal everywhere", v::offsetsEqual);
        v.all("after a write");

        // a full resync (the backlog too small for a partial one) that C loads slowly
        out.add(v.normalize(ClusterNodes.call(p[0], "CONFIG", "SET", "repl-backlog-size", "16384")));
        out.add(v.normalize(ClusterNodes.call(p[2], "CONFIG", "SET", "key-load-delay", "100000")));
        // Redis's replica answers its bus while loading only every so many bytes (else it would be failed meanwhile)
        out.add(v.normalize(ClusterNodes.call(p[2], "CONFIG", "SET", "loading-process-events-interval-bytes", "1024")));
        try (RawClient a = new RawClient(p[0])) {
            a.call("MULTI");
            a.call("CLIENT", "KILL", "TYPE", "replica");
            for (int i = 0; i < 100; i++) {
                a.call("SET", "{b}" + i, "A".repeat(1024));
            }
            out.add(v.normalize(a.callString("EXEC").substring(0, 4)));
        }
        // the primaries see C loading (C itself answers CLUSTER SHARDS and SLOTS with -LOADING meanwhile)
        v.await("C loading on A and B", () -> v.on(2, ids[2], "loading") && v.listedOn(2, false));
        v.all("C loading");
        out.add(v.normalize(ClusterNodes.call(p[2], "CONFIG", "SET", "key-load-delay", "0")));
        v.await("C online again everywhere", () -> v.everywhere(ids[2], "online") && v.listed(true) && v.offsetsEqual());
        v.all("C resynced");
        return out;
    }

    private interface Check {
        boolean ok() throws Exception;
    }

    /** What the nodes of one cluster show, as text with placeholders. */
    private record View(int[] ports, String[] ids, List<String> out) {
        void await(String what, Check c) throws Exception {
            ClusterFailoverTest.await(what + " (nodes " + ports[0] + "...)", 60_000, c::ok);
        }

        /** CLUSTER SHARDS and SLOTS of every node. */
        void all(String step) throws IOException {
            out.add("-- " + step);
            for (int i = 0; i < 3; i++) {
                List<String> shards = new ArrayList<>(List.of(normalize(shards(ports[i])).split("\n")));
                shards.sort(null);
                out.add(i + ": CLUSTER SHARDS -> " + shards);
                try (RawClient c = new RawClient(ports[i])) {
                    out.add(i + ": CLUSTER SLOTS -> " + normalize(ClusterEndpointsDiffTest.text(c.call("CLUSTER", "SLOTS"))));
                }
            }
        }

        /** Whether every node's CLUSTER SHARDS shows node {@code id} with this health. */
        boolean everywhere(String id, String health) throws IOException {
            return on(3, id, health);
        }

        /** Whether the CLUSTER SHARDS of the first {@code nodes} nodes show node {@code id} with this health. */
        boolean on(int nodes, String id, String health) throws IOException {
            for (int i = 0; i < nodes; i++) {
                if (!health.equals(field(shards(ports[i]), id, "\"health\" \"(\\w+)\""))) {
                    return false;
                }
            }
            return true;
        }

        /** Whether every node's CLUSTER SLOTS lists the replica C (or none lists it). */
        boolean listed(boolean expected) throws IOException {
            return listedOn(3, expected);
        }

        /** Whether the CLUSTER SLOTS of the first {@code nodes} nodes list the replica C (or none of them). */
        boolean listedOn(int nodes, boolean expected) throws IOException {
            for (int i = 0; i < nodes; i++) {
                if (ClusterNodes.call(ports[i], "CLUSTER", "SLOTS").contains(ids[2]) != expected) {
                    return false;
                }
            }
            return true;
        }

        /** Whether every node shows the same offset, above 0, for A and for C. */
        boolean offsetsEqual() throws IOException {
            String first = null;
            for (int port : ports) {
                String s = shards(port);
                String a = field(s, ids[0], "\"replication-offset\" :(\\d+)");
                String c = field(s, ids[2], "\"replication-offset\" :(\\d+)");
                if (a == null || !a.equals(c) || a.equals("0") || (first != null && !first.equals(a))) {
                    return false;
                }
                first = a;
            }
            return true;
        }

        private static String shards(int port) throws IOException {
            try (RawClient c = new RawClient(port)) {
                return ClusterEndpointsDiffTest.text(c.call("CLUSTER", "SHARDS"));
            }
        }

        /** The group of {@code pattern} in the description of node {@code id} in SHARDS' text, or null. */
        private static String field(String shards, String id, String pattern) {
            Matcher m = Pattern.compile("\"id\" \"" + id + "\"[^\\]]*?" + pattern).matcher(shards);
            return m.find() ? m.group(1) : null;
        }

        String normalize(String s) {
            for (int i = 0; i < 3; i++) {
                s = s.replace(ids[i], "<N" + i + ">").replace(Integer.toString(ports[i] + 10000), "<B" + i + ">")
                        .replace(Integer.toString(ports[i]), "<P" + i + ">");
            }
            return s.replaceAll("\"replication-offset\" :\\d+", "\"replication-offset\" :<OFF>");
        }
    }
}
