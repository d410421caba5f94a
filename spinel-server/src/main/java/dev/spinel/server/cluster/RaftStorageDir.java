package dev.spinel.server.cluster;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The node's Raft storage directory ({@code cluster-raft}, beside nodes.conf), wiped when the node starts a Raft
 * server anew (CLUSTER RESET, a half-made join retried). Stateless; called by one thread at a time (ClusterMode's
 * reset lock or its start).
 */
final class RaftStorageDir {
    private RaftStorageDir() {
    }

    /** Deletes {@code dir} and everything under it; nothing when it does not exist. */
    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
