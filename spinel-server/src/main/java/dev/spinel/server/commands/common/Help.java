package dev.spinel.server.commands.common;

import dev.spinel.server.engine.Session;

/** The reply of {@code <CONTAINER> HELP}: Redis's addReplyHelp layout, one status line per text line. */
public final class Help {
    private Help() {
    }

    public static void reply(Session s, String container, String... lines) {
        s.out().array(lines.length + 3);
        s.out().simple(container + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:");
        for (String l : lines) {
            s.out().simple(l);
        }
        s.out().simple("HELP");
        s.out().simple("    Prints this help.");
    }
}
