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

    /** Redis's MANIFEST_MAX_LINE: a longer line is refused. */
    private static final int MAX_LINE = 1024;

    /**
     * Reads a manifest as Redis's aofLoadManifestFromFile does, refusing what it refuses with its words (an empty
     * file, a blank or too long line, a line without file/seq/type or with an odd word count, a path as file name,
     * a second base, an unknown type, incremental sequence numbers not increasing); the exception's message is
     * Redis's report, one log line per line.
     */
    public static AofManifest read(Path manifest) throws IOException {
        String text = new String(Files.readAllBytes(manifest), StandardCharsets.ISO_8859_1);
        List<Part> parts = new ArrayList<>();
        boolean base = false;
        long maxSeq = 0;
        int lineNo = 0;
        int at = 0;
        if (text.isEmpty()) {
            throw new IOException(fatal(0, null, "Found an empty AOF manifest"));
        }
        while (at < text.length()) {
            int nl = text.indexOf('\n', at);
            int end = nl < 0 ? text.length() : nl;
            lineNo++;
            String raw = text.substring(at, Math.min(end, at + MAX_LINE)); // what Redis's fgets reads of the line
            boolean tooLong = nl < 0 || end - at >= MAX_LINE; // no newline within the buffer
            at = end + 1;
            if (raw.startsWith("#")) {
                continue;
            }
            String line = raw.replaceAll("^[ \\t\\r\\n]+|[ \\t\\r\\n]+$", "");
            if (tooLong) {
                throw new IOException(fatal(lineNo, null, "The AOF manifest file contains too long line")); // Redis has no line yet
            }
            if (line.isEmpty()) {
                throw new IOException(fatal(lineNo, line, "Invalid AOF manifest file format"));
            }
            List<String> w = ManifestArgs.split(line);
            if (w == null || w.size() < 6 || w.size() % 2 != 0) {
                throw new IOException(fatal(lineNo, line, "Invalid AOF manifest file format"));
            }
            String file = null;
            long seq = 0;
            char type = 0;
            for (int i = 0; i < w.size(); i += 2) {
                String k = w.get(i);
                String v = w.get(i + 1);
                if (k.equalsIgnoreCase("file")) {
                    if (v.indexOf('/') >= 0) {
                        throw new IOException(fatal(lineNo, line, "File can't be a path, just a filename"));
                    }
                    file = v;
                } else if (k.equalsIgnoreCase("seq")) {
                    seq = atoll(v);
                } else if (k.equalsIgnoreCase("type")) {
                    type = v.isEmpty() ? 0 : v.charAt(0);
                } // other keys are skipped, for forward compatibility (as Redis)
            }
            if (file == null || seq == 0 || type == 0) {
                throw new IOException(fatal(lineNo, line, "Invalid AOF manifest file format"));
            }
            switch (type) {
                case 'b' -> {
                    if (base) {
                        throw new IOException(fatal(lineNo, line, "Found duplicate base file information"));
                    }
                    base = true;
                }
                case 'h' -> { }
                case 'i' -> {
                    if (seq <= maxSeq) {
                        throw new IOException(fatal(lineNo, line, "Found a non-monotonic sequence number"));
                    }
                    maxSeq = seq;
                }
                default -> throw new IOException(fatal(lineNo, line, "Unknown AOF file type"));
            }
            parts.add(new Part(file, seq, type));
        }
        return new AofManifest(parts);
    }

    /** Redis's report of a bad manifest, one line per log line. */
    private static String fatal(int lineNo, String line, String err) {
        return "*** FATAL AOF MANIFEST FILE ERROR ***" + (line == null ? "" : "\nReading the manifest file, at line " + lineNo
                + "\n>>> '" + line + "'") + "\n" + err;
    }

    /** C's atoll: leading blanks, a sign, digits; 0 when none. */
    private static long atoll(String s) {
        int i = 0;
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) {
            i++;
        }
        boolean neg = i < s.length() && s.charAt(i) == '-';
        if (i < s.length() && (s.charAt(i) == '-' || s.charAt(i) == '+')) {
            i++;
        }
        long v = 0;
        for (; i < s.length() && Character.isDigit(s.charAt(i)); i++) {
            v = v * 10 + (s.charAt(i) - '0');
        }
        return neg ? -v : v;
    }

    public void write(Path manifest) throws IOException {
        StringBuilder sb = new StringBuilder();
        for (Part p : parts) {
            sb.append("file ").append(ManifestArgs.repr(p.file())).append(" seq ").append(p.seq()).append(" type ").append(p.type()).append('\n');
        }
        Path temp = manifest.resolveSibling("temp-" + manifest.getFileName());
        Files.writeString(temp, sb, StandardCharsets.ISO_8859_1);
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
