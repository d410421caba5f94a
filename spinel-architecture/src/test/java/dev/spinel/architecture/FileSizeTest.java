package dev.spinel.architecture;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Files a newcomer can read: no main source file of any module over {@value #MAX_LINES} lines, with no
 * exception (the last four, Engine, Session, Replication and Segment, were split by role). A file that grows
 * past it is split by role, not squeezed.
 */
class FileSizeTest {
    private static final int MAX_LINES = 500;

    @Test
    void noMainSourceFileIsTooLong() throws IOException {
        Path root = repositoryRoot();
        Map<String, Long> tooLong = new TreeMap<>();
        try (Stream<Path> modules = Files.list(root)) {
            for (Path module : modules.filter(m -> m.getFileName().toString().startsWith("spinel-")).toList()) {
                Path main = module.resolve("src/main/java");
                if (!Files.isDirectory(main)) {
                    continue;
                }
                try (Stream<Path> files = Files.walk(main)) {
                    for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                        String name = root.relativize(f).toString().replace('\\', '/');
                        long lines = lines(f);
                        if (lines > MAX_LINES) {
                            tooLong.put(name, lines);
                        }
                    }
                }
            }
        }
        assertEquals(Map.of(), tooLong, "main source files over " + MAX_LINES + " lines: split them by role");
    }

    private static long lines(Path f) {
        try (Stream<String> s = Files.lines(f)) {
            return s.count();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The directory holding the modules: Maven runs the test in this module's directory. */
    private static Path repositoryRoot() {
        Path here = Path.of("").toAbsolutePath();
        for (Path p = here; p != null; p = p.getParent()) {
            if (Files.isDirectory(p.resolve("spinel-server")) && Files.isDirectory(p.resolve("spinel-architecture"))) {
                return p;
            }
        }
        throw new IllegalStateException("no Spinel repository above " + here);
    }
}
