package dev.spinel.cluster;

import org.apache.ratis.protocol.RaftGroupId;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.UUID;

/**
 * The id of the Raft group a node starts alone in, kept in a file beside its Raft storage ({@code <storage>.group}).
 *
 * <p>A new storage gets a random id. CLUSTER RESET SOFT keeps the node id and starts a new storage, while the group it
 * started in may still run on the nodes it brought in (a node keeps a group it was moved out of for a minute, see
 * {@link RaftTopology}): had the id come from the node id, their leader would have fed the old group's log, every
 * node in it, to the node's new group of one (legacy test 00-base: its SET-CONFIG-EPOCH was then refused, and the
 * reset failed). A storage made before the file existed keeps the id it had, derived from the node id.
 *
 * <p>Stateless.
 */
final class OwnGroup {
    private OwnGroup() {
    }

    /** The own group of node {@code myId} whose Raft storage is {@code storage} ({@code fresh}: empty, about to be made). */
    static RaftGroupId of(Path storage, String myId, boolean fresh) throws IOException {
        Path file = storage.resolveSibling(storage.getFileName() + ".group");
        if (fresh) {
            UUID id = UUID.randomUUID();
            Path tmp = storage.resolveSibling(storage.getFileName() + ".group.tmp");
            Files.writeString(tmp, id + "\n");
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            return RaftGroupId.valueOf(id);
        }
        if (Files.exists(file)) {
            return RaftGroupId.valueOf(UUID.fromString(Files.readString(file).trim()));
        }
        return RaftGroupId.valueOf(UUID.nameUUIDFromBytes(myId.getBytes(StandardCharsets.US_ASCII)));
    }
}
