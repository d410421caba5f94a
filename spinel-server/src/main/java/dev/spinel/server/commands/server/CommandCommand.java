package dev.spinel.server.commands.server;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.RespValue;
import dev.spinel.protocol.RespValueWriter;
import dev.spinel.server.commands.common.Help;
import dev.spinel.protocol.KeyPositions.FlaggedKey;
import dev.spinel.server.engine.Command;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;
import dev.spinel.store.Glob;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;

/**
 * COMMAND [COUNT | INFO | DOCS | LIST | GETKEYS | GETKEYSANDFLAGS | HELP]: Redis 7.0's metadata for
 * the commands registered in the {@link CommandTable}, read at call time (families register in
 * any order). Containers list only the subcommands Spinel implements.
 *
 * <p>Thread-safety: the table is read-only after start-up; metadata is immutable.
 */
final class CommandCommand {
    private CommandCommand() {
    }

    static void register(CommandTable t) {
        t.register("command", CommandCommand::all);
        t.registerSub("command", "count", (s, a) -> s.out().integer(s.engine().commands().all().size()));
        t.registerSub("command", "info", CommandCommand::info);
        t.registerSub("command", "docs", CommandCommand::docs);
        t.registerSub("command", "list", CommandCommand::list);
        t.registerSub("command", "getkeys", (s, a) -> getkeys(s, a, false));
        t.registerSub("command", "getkeysandflags", (s, a) -> getkeys(s, a, true));
        t.registerSub("command", "help", CommandCommand::help);
    }

    // COMMAND  (the engine dispatches "COMMAND <sub>" to the subcommands; this runs without arguments)
    static void all(Session s, Args a) {
        Collection<Command> all = s.engine().commands().all();
        s.out().array(all.size());
        for (Command c : all) {
            RespValueWriter.write(s.out(), infoOf(c));
        }
    }

    // COMMAND INFO [command-name [command-name ...]]
    static void info(Session s, Args a) {
        if (a.count() == 2) {
            all(s, a);
            return;
        }
        s.out().array(a.count() - 2);
        for (int i = 2; i < a.count(); i++) {
            Command c = find(s, a.string(i));
            if (c == null) {
                s.out().nullBulk();
            } else {
                RespValueWriter.write(s.out(), infoOf(c));
            }
        }
    }

    // COMMAND DOCS [command-name [command-name ...]]
    static void docs(Session s, Args a) {
        List<Command> found = new ArrayList<>();
        if (a.count() == 2) {
            found.addAll(s.engine().commands().all());
        } else {
            for (int i = 2; i < a.count(); i++) {
                Command c = find(s, a.string(i));
                if (c != null) {
                    found.add(c);
                }
            }
        }
        s.out().map(found.size());
        for (Command c : found) {
            s.out().bulk(c.name());
            RespValueWriter.write(s.out(), docsOf(c));
        }
    }

    // COMMAND LIST [FILTERBY MODULE module-name | ACLCAT category | PATTERN pattern]
    static void list(Session s, Args a) {
        int mode = 0;
        String arg = null;
        if (a.count() == 5 && a.is(2, "FILTERBY")) {
            arg = a.string(4);
            if (a.is(3, "MODULE")) {
                mode = 1;
            } else if (a.is(3, "ACLCAT")) {
                mode = 2;
            } else if (a.is(3, "PATTERN")) {
                mode = 3;
            } else {
                throw Errors.SYNTAX;
            }
        } else if (a.count() != 2) {
            throw Errors.SYNTAX;
        }
        List<String> names = new ArrayList<>();
        for (Command c : s.engine().commands().allWithSubcommands()) {
            boolean keep = switch (mode) {
                case 0 -> true;
                case 1 -> false; // no modules can be loaded
                case 2 -> inCategory(c, arg);
                default -> Glob.matches(arg, c.name(), true);
            };
            if (keep) {
                names.add(c.name());
            }
        }
        s.out().array(names.size());
        for (String n : names) {
            s.out().bulk(n);
        }
    }

    private static boolean inCategory(Command c, String category) {
        String want = "@" + category.toLowerCase(Locale.ROOT);
        for (RespValue v : items(((RespValue.Array) c.spec().info()).items().get(6))) {
            if (want.equals(RespValue.text(v).toLowerCase(Locale.ROOT))) {
                return true;
            }
        }
        return false;
    }

    // COMMAND GETKEYS command [arg [arg ...]]  /  COMMAND GETKEYSANDFLAGS command [arg [arg ...]]
    static void getkeys(Session s, Args a, boolean withFlags) {
        Command c = s.engine().commands().visible(a.string(2));
        if (c != null && c.hasSubcommands() && a.count() > 3) {
            c = c.subcommand(a.string(3).toLowerCase(Locale.ROOT));
        }
        if (c == null) {
            throw new RedisError("ERR Invalid command specified");
        }
        List<FlaggedKey> keys = GetKeys.of(c.spec(), a, 2);
        s.out().array(keys.size());
        for (FlaggedKey k : keys) {
            if (withFlags) {
                s.out().array(2);
                s.out().bulk(a.buffer(), a.offset(2 + k.pos()), a.length(2 + k.pos()));
                s.out().set(k.flags().size()); // a set in RESP3, as Redis sends the flags
                for (String f : k.flags()) {
                    s.out().simple(f);
                }
            } else {
                s.out().bulk(a.buffer(), a.offset(2 + k.pos()), a.length(2 + k.pos()));
            }
        }
    }

    // COMMAND HELP
    static void help(Session s, Args a) {
        Help.reply(s, "COMMAND",
                "(no subcommand)",
                "    Return details about all Redis commands.",
                "COUNT",
                "    Return the total number of commands in this Redis server.",
                "LIST",
                "    Return a list of all commands in this Redis server.",
                "INFO [<command-name> ...]",
                "    Return details about multiple Redis commands.",
                "    If no command names are given, documentation details for all",
                "    commands are returned.",
                "DOCS [<command-name> ...]",
                "    Return documentation details about multiple Redis commands.",
                "    If no command names are given, documentation details for all",
                "    commands are returned.",
                "GETKEYS <full-command>",
                "    Return the keys from a full Redis command.",
                "GETKEYSANDFLAGS <full-command>",
                "    Return the keys and the access flags from a full Redis command.");
    }

    /** A registered command or subcommand by name ("get", "config|get"), or {@code null}. */
    private static Command find(Session s, String name) {
        int bar = name.indexOf('|');
        if (bar < 0) {
            return s.engine().commands().visible(name);
        }
        Command parent = s.engine().commands().visible(name.substring(0, bar));
        return parent == null ? null : parent.subcommand(name.substring(bar + 1).toLowerCase(Locale.ROOT));
    }

    /** The COMMAND INFO entry, its subcommand list reduced to the registered subcommands. */
    private static RespValue infoOf(Command c) {
        List<RespValue> items = ((RespValue.Array) c.spec().info()).items();
        if (items.size() <= 9) {
            return c.spec().info();
        }
        List<RespValue> subs = new ArrayList<>();
        for (RespValue sub : items(items.get(9))) {
            String name = RespValue.text(((RespValue.Array) sub).items().getFirst());
            if (c.subcommand(name.substring(name.indexOf('|') + 1)) != null) {
                subs.add(sub);
            }
        }
        List<RespValue> copy = new ArrayList<>(items);
        // the container type as captured (RESP3: Redis answers an empty set, ~0, for a command without subcommands)
        copy.set(9, items.get(9) instanceof RespValue.SetValue ? new RespValue.SetValue(subs) : new RespValue.Array(subs));
        return new RespValue.Array(copy);
    }

    /** The COMMAND DOCS value, its "subcommands" map reduced to the registered subcommands. */
    private static RespValue docsOf(Command c) {
        if (!(c.spec().docs() instanceof RespValue.MapValue m)) {
            return c.spec().docs();
        }
        List<RespValue> entries = new ArrayList<>(m.entries());
        for (int i = 0; i < entries.size(); i += 2) {
            if ("subcommands".equals(RespValue.text(entries.get(i)))
                    && entries.get(i + 1) instanceof RespValue.MapValue subs) {
                List<RespValue> kept = new ArrayList<>();
                List<RespValue> e = subs.entries();
                for (int k = 0; k < e.size(); k += 2) {
                    String name = RespValue.text(e.get(k));
                    if (c.subcommand(name.substring(name.indexOf('|') + 1)) != null) {
                        kept.add(e.get(k));
                        kept.add(e.get(k + 1));
                    }
                }
                entries.set(i + 1, new RespValue.MapValue(kept));
            }
        }
        return new RespValue.MapValue(entries);
    }

    private static List<RespValue> items(RespValue v) {
        return switch (v) {
            case RespValue.Array arr -> arr.items();
            case RespValue.SetValue set -> set.items();
            default -> List.of();
        };
    }
}
