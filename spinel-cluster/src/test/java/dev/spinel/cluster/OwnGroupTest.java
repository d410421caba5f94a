package dev.spinel.cluster;

import org.apache.ratis.protocol.RaftGroupId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/** A node's own Raft group: new with each new storage (a soft reset keeps the node id), kept across restarts. */
class OwnGroupTest {
    private static final String ID = "a".repeat(40);

    @Test
    void aNewStorageGetsANewGroupAndARestartKeepsIt(@TempDir Path dir) throws Exception {
        Path storage = dir.resolve("cluster-raft");
        RaftGroupId first = OwnGroup.of(storage, ID, true);
        assertEquals(first, OwnGroup.of(storage, ID, false));
        RaftGroupId second = OwnGroup.of(storage, ID, true); // CLUSTER RESET SOFT: the same id, a new storage
        assertNotEquals(first, second);
        assertNotEquals(RaftGroupId.valueOf(UUID.nameUUIDFromBytes(ID.getBytes(StandardCharsets.US_ASCII))), second);
        assertEquals(second, OwnGroup.of(storage, ID, false));
    }

    @Test
    void aStorageMadeBeforeTheFileKeepsTheGroupDerivedFromTheNodeId(@TempDir Path dir) throws Exception {
        Path storage = dir.resolve("cluster-raft");
        Files.createDirectories(storage);
        assertEquals(RaftGroupId.valueOf(UUID.nameUUIDFromBytes(ID.getBytes(StandardCharsets.US_ASCII))),
                OwnGroup.of(storage, ID, false));
    }
}
