package dev.spinel.server.durability;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * Redis 7.0's multi-part AOF manifest ({@code <appendfilename>.manifest} in {@code appenddirname}):
 * one line per file, {@code file <name> seq <n> type <b|h|i>}, the base file first, then the
 * incremental files in replay order. Written to a temporary file and renamed, so it is never torn.
 *
 * <p>Immutable and thread-safe.
 */
public record AofManifest(List<Part> parts) {
    /** One file: its name, sequence number and type ('b' base, 'h' history, 'i' incremental). */
    public record Part(String file, long seq, char type) {
    }

    public static AofManifest read(Path manifest) throws IOException {
        List<Part> parts = new ArrayList<>();
        int n = 0;
        for (String line : Files.readAllLines(manifest, StandardCharsets.UTF_8)) {
            n++;
            String l = line.strip();
            if (l.isEmpty() || l.startsWith("#")) {
                continue;
            }
            String[] w = l.split("\\s+");
            String file = null;
            long seq = -1;
            char type = 0;
            for (int i = 0; i + 1 < w.length; i += 2) {
                switch (w[i]) {
                    case "file" -> file = w[i + 1];
                    case "seq" -> seq = parseSeq(w[i + 1], manifest, n);
                    case "type" -> type = w[i + 1].length() == 1 ? w[i + 1].charAt(0) : 0;
                    default -> { } // unknown keys are skipped, as Redis does
                }
            }
            if (file == null || seq < 0 || (type != 'b' && type != 'h' && type != 'i') || w.length % 2 != 0) {
                throw new IOException("Invalid AOF manifest file format at line " + n + " of " + manifest);
            }
            parts.add(new Part(file, seq, type));
        }
        return new AofManifest(parts);
    }

    private static long parseSeq(String s, Path manifest, int line) throws IOException {
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            throw new IOException("Invalid AOF manifest file format at line " + line + " of " + manifest);
        }
    }

    public void write(Path manifest) throws IOException {
        StringBuilder sb = new StringBuilder();
        for (Part p : parts) {
            sb.append("file ").append(p.file()).append(" seq ").append(p.seq()).append(" type ").append(p.type()).append('\n');
        }
        Path temp = manifest.resolveSibling("temp-" + manifest.getFileName());
        Files.writeString(temp, sb, StandardCharsets.UTF_8);
        try (var ch = FileChannel.open(temp, StandardOpenOption.WRITE)) {
            ch.force(true);
        }
        Files.move(temp, manifest, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    public Part base() {
        return parts.stream().filter(p -> p.type() == 'b').findFirst().orElse(null);
    }

    public List<Part> incrementals() {
        return parts.stream().filter(p -> p.type() == 'i').toList();
    }
}
