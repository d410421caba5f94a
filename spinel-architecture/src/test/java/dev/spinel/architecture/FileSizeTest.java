package dev.spinel.architecture;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Files a newcomer can read: no main source file of any module over {@value #MAX_LINES} lines. The files
 * still over it are named below with their size when they were listed; each may shrink but not grow, and
 * leaves the list once it is split (the test then says so), so the list only gets shorter.
 */
class FileSizeTest {
    private static final int MAX_LINES = 500;

    /** Path from the repository root → lines when listed. Split these by role, then remove them here. */
    private static final Map<String, Integer> NOT_YET_SPLIT = Map.ofEntries(
            Map.entry("spinel-server/src/main/java/dev/spinel/server/replication/Replication.java", 616));

    @Test
    void noMainSourceFileIsTooLong() throws IOException {
        Path root = repositoryRoot();
        Map<String, Long> tooLong = new TreeMap<>();
        List<String> splitAlready = new ArrayList<>();
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
                        Integer listed = NOT_YET_SPLIT.get(name);
                        if (listed == null ? lines > MAX_LINES : lines > listed) {
                            tooLong.put(name, lines);
                        } else if (listed != null && lines <= MAX_LINES) {
                            splitAlready.add(name);
                        }
                    }
                }
            }
        }
        assertEquals(Map.of(), tooLong, "main source files over " + MAX_LINES
                + " lines (or past their size in NOT_YET_SPLIT): split them by role");
        assertEquals(List.of(), splitAlready, "now at most " + MAX_LINES + " lines: remove them from NOT_YET_SPLIT");
        for (String listed : NOT_YET_SPLIT.keySet()) {
            assertTrue(Files.exists(root.resolve(listed)), listed + " is gone: remove it from NOT_YET_SPLIT");
        }
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
