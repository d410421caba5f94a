package dev.spinel.store;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The real heap size of every entry class under the server's layout flags ({@code bin/spinel-server}: compact object
 * headers and ZGC, whose references are 8 bytes), measured as bytes allocated per entry in a JVM started with those
 * flags ({@link EntrySizeProbe}): it must be what {@link Entry#footprint()} accounts (used_memory, maxmemory), and the
 * common key (14 bytes, 32-byte value) must take 72 bytes (docs/memory.md, round 8: an entry holding its string in
 * its own fields has no value reference; it took 80 with one).
 */
class EntrySizeTest {
    private static final Pattern LINE = Pattern.compile("(.*) class=(\\S+) allocated=(\\d+) footprint=(\\d+)");

    @Test
    void everyEntryClassAllocatesWhatItsFootprintSays() throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "-XX:+UseCompactObjectHeaders", "-XX:+UseZGC", "-Xmx256m",
                "-cp", System.getProperty("java.class.path"), EntrySizeProbe.class.getName())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), out);
        assertEquals(0, p.exitValue(), out);
        List<String> seen = new ArrayList<>();
        for (String line : out.strip().split("\n")) {
            Matcher m = LINE.matcher(line.strip());
            assertTrue(m.matches(), out);
            assertEquals(Long.parseLong(m.group(4)), Long.parseLong(m.group(3)), line);
            seen.add(m.group(1) + " " + m.group(3));
        }
        assertEquals(4 + 2 + 2 * 6 + 2 * 5, seen.size(), out);
        assertTrue(seen.contains("string key=14 value=32 ttl=false 72"), out);
        // a wide key's string in the entry (round 9): 80 B where a WideKeyEntry and its value array took 56 + 48
        assertTrue(seen.contains("string key=22 value=32 ttl=false 80"), out);
        assertTrue(seen.contains("string key=22 value=32 ttl=true 88"), out);
        assertTrue(seen.contains("string key=22 value=40 ttl=false 88"), out);
        assertTrue(seen.contains("string key=14 value=32 ttl=true 80"), out);
        assertTrue(seen.contains("ref key=14 ttl=false 48"), out);
    }

    @Test
    void anInlineStringEntryHoldsNoReferenceButTheChains() {
        for (Class<?> c = InlineStringEntry.S6.Volatile.class; c != Object.class; c = c.getSuperclass()) {
            for (Field f : c.getDeclaredFields()) {
                if (!Modifier.isStatic(f.getModifiers()) && !f.getType().isPrimitive()) {
                    assertEquals("next", f.getName(), c.getName() + "." + f.getName());
                }
            }
        }
    }
}
