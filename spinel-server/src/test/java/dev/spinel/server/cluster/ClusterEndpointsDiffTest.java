package dev.spinel.server.cluster;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static dev.spinel.server.cluster.ClusterFailoverTest.await;

/**
 * Announced hostnames and {@code cluster-preferred-endpoint-type} (legacy cluster test 27-endpoints), byte for byte
 * against three redis-server 7.0.15 primaries: both clusters made by {@code redis-cli --cluster create} (the same slots
 * on the same node index), the same steps on both: hostnames set, changed and removed on some nodes and seen by every
 * node; CLUSTER NODES ({@code ip:port@cport,hostname}), SLOTS (RESP2 and RESP3: the endpoint, then the other
 * addresses), SHARDS (the endpoint, the hostname field), and MOVED and ASK with each endpoint type ({@code ?} for a
 * node without hostname, the empty endpoint for unknown-endpoint); CONFIG's checks of both parameters. Ids, ports and
 * what depends on time (ping and pong times, replication offsets) are replaced by placeholders, and the shards of
 * CLUSTER SHARDS (in Redis's dict order) and the lines of CLUSTER NODES are sorted.
 */
class ClusterEndpointsDiffTest {
    private static final int[] REDIS = {22621, 22622, 22623};
    private static final int[] SPINEL = {22631, 22632, 22633};
    private static final RedisServerProcess[] redis = new RedisServerProcess[3];
    private static SpinelServer[] spinel;

    @BeforeAll
    static void start() throws Exception {
        List<String> create = new ArrayList<>(List.of("--cluster", "create"));
        for (int i = 0; i < 3; i++) {
            redis[i] = RedisServerProcess.startOn(REDIS[i], "--cluster-enabled", "yes", "--cluster-node-timeout", "5000");
            create.add("127.0.0.1:" + REDIS[i]);
        }
        create.add("--cluster-yes");
        ClusterNodes.redisCli(create.toArray(String[]::new));
        for (int port : REDIS) {
            ClusterNodes.awaitWholeCluster(port, 3);
        }
        spinel = ClusterNodes.create("endpoints", SPINEL, i -> ServerConfig.defaults());
    }

    @AfterAll
    static void stop() {
        ClusterNodes.closeAll(spinel);
        for (RedisServerProcess r : redis) {
            if (r != null) {
                r.close();
            }
        }
    }

    @Test
    void endpointsAsRedis() throws Exception {
        List<String> r = transcript(REDIS);
        List<String> s = transcript(SPINEL);
        ClusterNodes.assertSameTranscripts("cluster-endpoints", r, s);
    }

    private static List<String> transcript(int[] ports) throws Exception {
        String[] ids = new String[3];
        for (int i = 0; i < 3; i++) {
            ids[i] = ClusterNodes.call(ports[i], "CLUSTER", "MYID").split("\r\n")[1];
        }
        Steps st = new Steps(ports, ids, new ArrayList<>());
        st.call(0, "CONFIG", "SET", "cluster-announce-hostname", "host-0.example");
        st.call(2, "CONFIG", "SET", "cluster-announce-hostname", "host-2.example");
        st.awaitNodes("host-0.example", "host-2.example");
        st.views();
        // a name changed, another added, one removed
        st.call(0, "CONFIG", "SET", "cluster-announce-hostname", "shard-0.example");
        st.call(1, "CONFIG", "SET", "cluster-announce-hostname", "shard-1.example");
        st.call(2, "CONFIG", "SET", "cluster-announce-hostname", "");
        st.awaitNodes("shard-0.example", "shard-1.example");
        st.views();
        st.call(1, "CONFIG", "SET", "cluster-announce-hostname", "");
        st.call(2, "CONFIG", "SET", "cluster-announce-hostname", "host-2.example");
        st.awaitNodes("shard-0.example", "host-2.example");
        // "foo" is slot 12182 (node 2, a hostname), "barfoo" slot 10078 (node 1, none)
        for (String type : new String[]{"ip", "hostname", "unknown-endpoint", "HOSTNAME"}) {
            st.call(0, "CONFIG", "SET", "cluster-preferred-endpoint-type", type);
            st.call(0, "CONFIG", "GET", "cluster-preferred-endpoint-type");
            st.views();
            st.call(0, "SET", "foo", "x");
            st.call(0, "GET", "barfoo");
        }
        st.call(0, "CONFIG", "SET", "cluster-preferred-endpoint-type", "dns");
        st.call(0, "CONFIG", "SET", "cluster-announce-hostname", "?.example");
        st.call(0, "CONFIG", "SET", "cluster-announce-hostname", "x".repeat(256));
        st.call(0, "CONFIG", "GET", "cluster-announce-hostname");
        // ASK: node 2 migrates slot 12182 to node 0 and no longer holds the key
        st.call(2, "CONFIG", "SET", "cluster-preferred-endpoint-type", "hostname");
        st.call(0, "CLUSTER", "SETSLOT", "12182", "IMPORTING", ids[2]);
        st.call(2, "CLUSTER", "SETSLOT", "12182", "MIGRATING", ids[0]);
        st.call(2, "GET", "foo");
        st.call(2, "CONFIG", "SET", "cluster-preferred-endpoint-type", "unknown-endpoint");
        st.call(2, "GET", "foo");
        st.call(2, "CLUSTER", "SETSLOT", "12182", "STABLE");
        st.call(0, "CLUSTER", "SETSLOT", "12182", "STABLE");
        st.call(2, "CONFIG", "SET", "cluster-preferred-endpoint-type", "ip");
        st.call(0, "CONFIG", "SET", "cluster-preferred-endpoint-type", "ip");
        st.call(0, "CONFIG", "SET", "cluster-announce-hostname", "");
        st.call(2, "CONFIG", "SET", "cluster-announce-hostname", "");
        st.awaitNodes();
        st.views();
        return st.out();
    }

    /** Steps on node {@code i} of a cluster, their replies with placeholders for what differs between the two. */
    private record Steps(int[] ports, String[] ids, List<String> out) {
        void call(int node, String... args) throws IOException {
            try (RawClient c = new RawClient(ports[node])) {
                out.add(node + ": " + normalize(String.join(" ", args)) + " -> " + normalize(text(c.call(args))));
            }
        }

        /** CLUSTER NODES, SLOTS (RESP2, RESP3) and SHARDS of node 0. */
        void views() throws IOException {
            String nodes = ClusterNodes.call(ports[0], "CLUSTER", "NODES");
            List<String> lines = new ArrayList<>();
            for (String line : nodes.substring(nodes.indexOf("\r\n") + 2).split("\n")) {
                String[] f = line.trim().split(" ");
                if (f.length >= 8) {
                    f[4] = "<PING>";
                    f[5] = "<PONG>";
                    lines.add(normalize(String.join(" ", f)));
                }
            }
            lines.sort(null);
            out.add("CLUSTER NODES -> " + lines);
            try (RawClient c = new RawClient(ports[0])) {
                out.add("CLUSTER SLOTS -> " + normalize(text(c.call("CLUSTER", "SLOTS"))));
                List<String> shards = new ArrayList<>(List.of(normalize(text(c.call("CLUSTER", "SHARDS"))).split("\n")));
                shards.sort(null);
                out.add("CLUSTER SHARDS -> " + shards);
                c.call("HELLO", "3");
                out.add("CLUSTER SLOTS (RESP3) -> " + normalize(text(c.call("CLUSTER", "SLOTS"))));
            }
        }

        /** Waits until every node's CLUSTER NODES shows exactly these hostnames. */
        void awaitNodes(String... hostnames) throws Exception {
            for (int port : ports) {
                await("node " + port + " never showed the hostnames " + Arrays.toString(hostnames), 20_000, () -> {
                    String nodes = ClusterNodes.call(port, "CLUSTER", "NODES");
                    int named = 0;
                    for (String line : nodes.split("\n")) {
                        String[] f = line.trim().split(" ");
                        if (f.length >= 8 && f[1].contains(",")) {
                            named++;
                            if (!Arrays.asList(hostnames).contains(f[1].substring(f[1].indexOf(',') + 1))) {
                                return false;
                            }
                        }
                    }
                    return named == hostnames.length;
                });
            }
        }

        private String normalize(String s) {
            for (int i = 0; i < 3; i++) {
                s = s.replace(ids[i], "<N" + i + ">").replace(Integer.toString(ports[i] + 10000), "<B" + i + ">")
                        .replace(Integer.toString(ports[i]), "<P" + i + ">");
            }
            return s.replaceAll("\"replication-offset\" :\\d+", "\"replication-offset\" :<OFF>");
        }
    }

    /** A reply as text: one line per top-level element of an array (CLUSTER SHARDS' shards), nested ones in brackets. */
    static String text(byte[] reply) {
        int[] pos = {0};
        String s = new String(reply, StandardCharsets.UTF_8);
        if (s.charAt(0) == '*') {
            int n = Integer.parseInt(s.substring(1, s.indexOf("\r\n")));
            pos[0] = s.indexOf("\r\n") + 2;
            List<String> items = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                items.add(element(s, pos));
            }
            return "*" + n + "\n" + String.join("\n", items);
        }
        return element(s, pos);
    }

    private static String element(String s, int[] pos) {
        int eol = s.indexOf("\r\n", pos[0]);
        char type = s.charAt(pos[0]);
        String head = s.substring(pos[0] + 1, eol);
        pos[0] = eol + 2;
        switch (type) {
            case '$' -> {
                int len = Integer.parseInt(head);
                if (len < 0) {
                    return "$null";
                }
                String v = s.substring(pos[0], pos[0] + len);
                pos[0] += len + 2;
                return '"' + v + '"';
            }
            case '*', '%' -> {
                int n = Integer.parseInt(head) * (type == '%' ? 2 : 1);
                List<String> items = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    items.add(element(s, pos));
                }
                return type + "[" + String.join(" ", items) + "]";
            }
            default -> {
                return type + head;
            }
        }
    }
}
