package dev.spinel.server.acl;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The ACL file ({@code aclfile}): one {@code user <name> <rules...>} line per user, as ACL LIST prints
 * them; blank lines allowed, comments not (the file is rewritten by ACL SAVE). Loading is all or
 * nothing: any bad line leaves the users as they were, and the error names every bad line, in Redis's
 * words. The text is read and written as ISO-8859-1, so names and patterns keep their bytes.
 *
 * <p>Stateless; the caller serializes loads and saves (the {@link Acl} lock).
 */
public final class AclFile {
    private AclFile() {
    }

    /**
     * ACL LOAD: reads {@code file} ({@code shownName} is how errors name it, the configured path) and
     * replaces the users. Returns the users replaced (their connections are to be closed).
     *
     * @throws IllegalArgumentException with Redis's error text (without "ERR ") when nothing was loaded
     */
    public static List<User> load(Acl acl, Path file, String shownName) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            throw new IllegalArgumentException("Error loading ACLs, opening file '" + shownName + "': " + reason(e));
        }
        StringBuilder errors = new StringBuilder();
        Map<String, UserRules> loaded = new LinkedHashMap<>();
        String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            int lineNo = i + 1;
            String line = strip(lines[i], " \t\r\n");
            if (line.isEmpty()) {
                continue;
            }
            String[] argv = line.split(" ", -1);
            if (!argv[0].equals("user") || argv.length < 2) {
                errors.append(shownName).append(':').append(lineNo)
                        .append(" should start with user keyword followed by the username. ");
                continue;
            }
            if (Selector.hasSpaces(argv[1])) {
                errors.append("'").append(shownName).append(':').append(lineNo).append(": username '").append(argv[1])
                        .append("' contains invalid characters. ");
                continue;
            }
            if (loaded.containsKey(argv[1])) {
                errors.append("WARNING: Duplicate user '").append(argv[1]).append("' found on line ").append(lineNo)
                        .append(". ");
                continue;
            }
            UserRules rules = acl.newRules();
            loaded.put(argv[1], rules);
            List<String> ops = mergeSelectors(List.of(argv).subList(2, argv.length));
            if (ops == null) {
                errors.append(shownName).append(':').append(lineNo)
                        .append(": Unmatched parenthesis in selector definition.");
                continue;
            }
            for (String op : ops) {
                try {
                    rules.apply(strip(op, "\t\r\n"));
                } catch (AclRuleException e) {
                    errors.append(shownName).append(':').append(lineNo).append(": ").append(e.getMessage()).append(". ");
                }
            }
        }
        if (!errors.isEmpty()) {
            throw new IllegalArgumentException(errors
                    + "WARNING: ACL errors detected, no change to the previously active ACL rules was performed");
        }
        return acl.replaceAll(loaded);
    }

    /** ACL SAVE: writes every user's line to a temporary file, then renames it over {@code file}. */
    public static void save(Acl acl, Path file) throws IOException {
        StringBuilder sb = new StringBuilder();
        for (User u : acl.users()) {
            sb.append(Acl.describe(u)).append('\n');
        }
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp-" + ProcessHandle.current().pid() + "-"
                + System.currentTimeMillis());
        try {
            Files.writeString(tmp, sb, StandardCharsets.ISO_8859_1);
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /**
     * Joins a selector written over several arguments ({@code "(~a" "+get)"}) into one, as Redis's
     * ACLMergeSelectorArguments; null when a parenthesis is not closed.
     */
    public static List<String> mergeSelectors(List<String> args) {
        List<String> out = new ArrayList<>();
        StringBuilder selector = null;
        for (String op : args) {
            if (selector == null && op.startsWith("(") && !op.endsWith(")")) {
                selector = new StringBuilder(op);
                continue;
            }
            if (selector != null) {
                selector.append(' ').append(op);
                if (op.endsWith(")")) {
                    out.add(selector.toString());
                    selector = null;
                }
                continue;
            }
            out.add(op);
        }
        return selector == null ? out : null;
    }

    /** Index of the argument that opens the unclosed selector, or -1. */
    public static int unmatchedSelector(List<String> args) {
        int open = -1;
        for (int i = 0; i < args.size(); i++) {
            String op = args.get(i);
            if (open < 0 && op.startsWith("(") && !op.endsWith(")")) {
                open = i;
            } else if (open >= 0 && op.endsWith(")")) {
                open = -1;
            }
        }
        return open;
    }

    private static String strip(String s, String chars) {
        int b = 0;
        int e = s.length();
        while (b < e && chars.indexOf(s.charAt(b)) >= 0) {
            b++;
        }
        while (e > b && chars.indexOf(s.charAt(e - 1)) >= 0) {
            e--;
        }
        return s.substring(b, e);
    }

    private static String reason(IOException e) {
        if (e instanceof NoSuchFileException) {
            return "No such file or directory";
        }
        if (e instanceof AccessDeniedException) {
            return "Permission denied";
        }
        return String.valueOf(e.getMessage());
    }
}
