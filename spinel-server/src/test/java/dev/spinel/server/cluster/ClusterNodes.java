package dev.spinel.server.cluster;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;

import java.io.IOException;
import java.nio.file.Path;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fixture of the multi-node tests: Spinel nodes in cluster mode made one cluster by
 * {@code redis-cli --cluster create}, as a user makes one.
 */
final class ClusterNodes {
    private ClusterNodes() {
    }

    /**
     * Starts a node on each of {@code ports} ({@code extra} adds settings per node index; each node gets a
     * fresh directory and no repl-diskless-sync-delay), joins them with {@code redis-cli --cluster create} and waits until every node sees
     * the whole cluster with every slot served.
     */
    static SpinelServer[] create(String name, int[] ports, IntFunction<ServerConfig> base) throws Exception {
        return create(name, ports, 0, base);
    }

    /**
     * As {@link #create(String, int[], IntFunction)}, with {@code --cluster-replicas replicas}: redis-cli makes the
     * first {@code ports.length / (replicas + 1)} nodes primaries and the others their replicas.
     */
    static SpinelServer[] create(String name, int[] ports, int replicas, IntFunction<ServerConfig> base) throws Exception {
        SpinelServer[] nodes = new SpinelServer[ports.length];
        List<String> args = new ArrayList<>(List.of("--cluster", "create"));
        for (int i = 0; i < ports.length; i++) {
            // repl-diskless-sync-delay 0: a replica joining a primary would otherwise wait 5 s for its full sync
            nodes[i] = SpinelServer.start(base.apply(i).with("port", Integer.toString(ports[i]))
                    .with("cluster-enabled", "yes").with("repl-diskless-sync-delay", "0")
                    .with("dir", Files.createTempDirectory("spinel-" + name + "-" + i).toString()));
            args.add("127.0.0.1:" + ports[i]);
        }
        args.addAll(List.of("--cluster-replicas", Integer.toString(replicas), "--cluster-yes"));
        String out = redisCli(args.toArray(String[]::new));
        assertTrue(out.contains("[OK] All 16384 slots covered."), out);
        for (int port : ports) {
            awaitWholeCluster(port, ports.length);
        }
        return nodes;
    }

    /**
     * Starts one cluster-enabled node on {@code port}, joined to none: {@code base}'s settings, a fresh directory
     * named after {@code name}, no repl-diskless-sync-delay.
     */
    static SpinelServer startNode(String name, int port, ServerConfig base) throws IOException {
        return SpinelServer.start(base.with("port", Integer.toString(port)).with("cluster-enabled", "yes")
                .with("repl-diskless-sync-delay", "0").with("dir", Files.createTempDirectory("spinel-" + name).toString()));
    }

    /** One request on a connection of its own; the reply as text. */
    static String call(int port, String... args) throws IOException {
        try (RawClient r = new RawClient(port)) {
            return r.callString(args);
        }
    }

    /** As {@link #call}, but "" when the node does not answer (killed, stopped): for polls across a failover. */
    static String callOrEmpty(int port, String... args) {
        try {
            return call(port, args);
        } catch (IOException down) {
            return "";
        }
    }

    /** Runs redis-cli with {@code args}; its output, once it exited with 0 within 120 s. */
    static String redisCli(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("redis-cli"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "redis-cli " + String.join(" ", args) + " did not finish");
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), out);
        return out;
    }

    /** Waits (20 s at most) until the node on {@code port} reports cluster_state:ok with {@code nodes} known nodes. */
    static void awaitWholeCluster(int port, int nodes) throws Exception {
        awaitWholeCluster(port, nodes, 20_000);
    }

    /**
     * As above, waiting up to {@code ms} (each join is a Raft configuration change: room for a loaded machine); a node
     * not answering yet is asked again.
     */
    static void awaitWholeCluster(int port, int nodes, long ms) throws Exception {
        ClusterFailoverTest.await("node " + port + " never saw the whole cluster", ms, () -> {
            String info = callOrEmpty(port, "CLUSTER", "INFO");
            return info.contains("cluster_state:ok") && info.contains("cluster_known_nodes:" + nodes);
        });
    }

    static void closeAll(SpinelServer[] nodes) {
        if (nodes == null) {
            return;
        }
        for (SpinelServer s : nodes) {
            if (s != null) {
                s.close();
            }
        }
    }

    /**
     * Two primaries A (slots 0-8191) and B (8192-16383) met, then C met A: the three nodes of a side-by-side
     * cluster test, each seeing the whole cluster ok before it returns.
     */
    static void formThreeNodes(int[] p) throws Exception {
        call(p[0], "CLUSTER", "ADDSLOTSRANGE", "0", "8191");
        call(p[1], "CLUSTER", "ADDSLOTSRANGE", "8192", "16383");
        call(p[1], "CLUSTER", "MEET", "127.0.0.1", Integer.toString(p[0]));
        ClusterFailoverTest.await("B never joined A", 60_000, () -> call(p[1], "CLUSTER", "INFO").contains("cluster_known_nodes:2"));
        call(p[2], "CLUSTER", "MEET", "127.0.0.1", Integer.toString(p[0]));
        for (int port : p) {
            awaitWholeCluster(port, 3, 60_000);
        }
    }

    /** Compares two transcripts step by step (Redis's first), both kept in a temporary directory named by {@code name}. */
    static void assertSameTranscripts(String name, List<String> redis, List<String> spinel) throws IOException {
        Path dir = Files.createTempDirectory(name);
        Files.write(dir.resolve("transcript-redis.txt"), redis);
        Files.write(dir.resolve("transcript-spinel.txt"), spinel);
        for (int i = 0; i < Math.min(redis.size(), spinel.size()); i++) {
            assertEquals(redis.get(i), spinel.get(i), "step " + i + " (transcripts in " + dir + ")");
        }
        assertEquals(redis.size(), spinel.size());
    }
}
