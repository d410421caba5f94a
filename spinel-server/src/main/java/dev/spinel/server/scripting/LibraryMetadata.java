package dev.spinel.server.scripting;

import dev.spinel.server.config.Quoting;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * The first line of a function library, {@code #!<engine> name=<library>}, parsed as Redis 7.0's
 * {@code functionExtractLibMetaData} does, with its error texts. {@code body} is the code after the
 * shebang, starting at its newline (so the library's first line of code is line 2 in error messages,
 * as in Redis).
 */
record LibraryMetadata(String engine, String name, byte[] body) {

    /** Parses {@code code}; a {@link FunctionError} carries Redis's text (without "ERR "). */
    static LibraryMetadata parse(byte[] code) {
        if (code.length < 2 || code[0] != '#' || code[1] != '!') {
            throw new FunctionError("Missing library metadata");
        }
        int nl = -1;
        for (int i = 0; i < code.length; i++) {
            if (code[i] == '\n') {
                nl = i;
                break;
            }
        }
        if (nl < 0) {
            throw new FunctionError("Invalid library metadata");
        }
        List<String> parts = Quoting.split(new String(code, 0, nl, StandardCharsets.ISO_8859_1));
        if (parts == null || parts.isEmpty()) {
            throw new FunctionError("Invalid library metadata");
        }
        String engine = parts.getFirst().length() > 2 ? parts.getFirst().substring(2) : "";
        String name = null;
        for (int i = 1; i < parts.size(); i++) {
            String part = parts.get(i);
            if (part.regionMatches(true, 0, "name=", 0, 5)) {
                if (name != null) {
                    throw new FunctionError("Invalid metadata value, name argument was given multiple times");
                }
                name = part.substring(5);
                continue;
            }
            throw new FunctionError("Invalid metadata value given: " + part);
        }
        if (name == null) {
            throw new FunctionError("Library name was not given");
        }
        return new LibraryMetadata(engine, name, Arrays.copyOfRange(code, nl, code.length));
    }

    /** Letters, digits and underscores, at least one (Redis's {@code functionsVerifyName}). */
    static boolean validName(String name) {
        if (name.isEmpty()) {
            return false;
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_')) {
                return false;
            }
        }
        return true;
    }
}
