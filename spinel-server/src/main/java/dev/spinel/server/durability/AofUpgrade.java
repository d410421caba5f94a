package dev.spinel.server.durability;

import dev.spinel.server.log.Log;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The move of a pre-7.0 single-file log ({@code dir/<appendfilename>}) into the multi-part layout, as Redis
 * 7.0's loadAppendOnlyFiles / aofUpgradePrepare do: when that file exists in the server directory and the
 * log directory does not exist, or its manifest lists nothing, or lists only that file as base (an upgrade
 * interrupted between the manifest write and the move), the manifest is written with the old file as base
 * seq 1, then the file is moved into the log directory; the start then loads it and opens incr file 1.
 *
 * <p>Thread-safety: runs once, at start-up, before the log is loaded.
 */
final class AofUpgrade {
    private AofUpgrade() {
    }

    /** Upgrades when Redis would; returns whether it did. */
    static boolean ifNeeded(Path serverDir, Path aofDir, Path manifestPath, String fileName) throws IOException {
        Path old = serverDir.resolve(fileName);
        if (!Files.isRegularFile(old)) {
            return false;
        }
        AofManifest m = Files.exists(manifestPath) ? AofManifest.read(manifestPath) : new AofManifest(List.of());
        AofManifest.Part base = m.base();
        boolean empty = base == null && m.incrementals().isEmpty();
        boolean interrupted = base != null && m.incrementals().isEmpty() && base.file().equals(fileName)
                && !Files.exists(aofDir.resolve(fileName));
        if (Files.isDirectory(aofDir) && !empty && !interrupted) {
            return false;
        }
        Files.createDirectories(aofDir);
        List<AofManifest.Part> parts = new ArrayList<>();
        parts.add(new AofManifest.Part(fileName, 1, 'b'));
        for (AofManifest.Part p : m.parts()) {
            if (p.type() != 'b') {
                parts.add(p);
            }
        }
        new AofManifest(parts).write(manifestPath); // first: a crash before the move is continued next start
        Files.move(old, aofDir.resolve(fileName), StandardCopyOption.ATOMIC_MOVE);
        Log.notice("Successfully migrated an old-style AOF into the AOF directory " + aofDir.getFileName() + ".");
        return true;
    }
}
