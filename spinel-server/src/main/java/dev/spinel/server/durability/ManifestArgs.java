package dev.spinel.server.durability;

import dev.spinel.protocol.Repr;
import dev.spinel.server.config.Quoting;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The word syntax of a manifest line, as Redis reads it (sdssplitargs) and writes it (sdscatrepr for a file
 * name with spaces, quotes or unprintable bytes): words separated by blanks, a word may be "double quoted"
 * with \n \r \t \b \a \\ \" \xHH escapes or 'single quoted' with \' escapes. Names are ISO-8859-1 strings
 * (one char per byte), as file names are bytes to Redis.
 *
 * <p>Thread-safety: stateless.
 */
final class ManifestArgs {
    private ManifestArgs() {
    }

    /** The words of {@code line}, or null when a quote is unbalanced or not followed by a blank (Redis's NULL). */
    static List<String> split(String line) {
        return Quoting.splitLatin1(line);
    }

    /** {@code name} as Redis writes it in a manifest: as is, or quoted with escapes when it needs to be. */
    static String repr(String name) {
        boolean needs = name.isEmpty();
        for (int i = 0; i < name.length() && !needs; i++) {
            char c = name.charAt(i);
            needs = c == '\\' || c == '"' || c < 0x21 || c > 0x7e;
        }
        if (!needs) {
            return name;
        }
        byte[] bytes = name.getBytes(StandardCharsets.ISO_8859_1);
        StringBuilder sb = new StringBuilder(bytes.length + 8);
        Repr.append(sb, bytes, 0, bytes.length);
        return sb.toString();
    }
}
