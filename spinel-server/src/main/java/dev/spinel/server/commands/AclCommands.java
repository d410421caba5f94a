package dev.spinel.server.commands;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.protocol.RespValue;
import dev.spinel.server.engine.AclLog;
import dev.spinel.server.engine.Command;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Errors;
import dev.spinel.server.engine.RedisError;
import dev.spinel.server.engine.Session;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;

/**
 * ACL for the one user Spinel has, {@code default}, allowed every command, key and channel, with the
 * {@code requirepass} password (Redis's acl.c as it answers for that user): WHOAMI, USERS, LIST, GETUSER,
 * CAT, DRYRUN, GENPASS, LOG (denied authentications, {@link AclLog}), DELUSER, LOAD, SAVE, HELP. Other users
 * (SETUSER) are not supported.
 *
 * <p>Thread-safety: stateless apart from the engine's {@link AclLog}.
 */
final class AclCommands {
    private static final List<String> CATEGORIES = List.of("keyspace", "read", "write", "set", "sortedset", "list",
            "hash", "string", "bitmap", "hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow", "blocking",
            "dangerous", "connection", "transaction", "scripting");
    private static final RedisError NO_ACL_FILE = new RedisError("ERR This Redis instance is not configured to use an "
            + "ACL file. You may want to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE "
            + "(assuming you have a Redis configuration file set) in order to store users in the Redis configuration.");
    private static final SecureRandom RANDOM = new SecureRandom();

    private AclCommands() {
    }

    static void register(CommandTable t) {
        t.register("acl", null);
        t.registerSub("acl", "whoami", (s, a) -> s.out().bulk("default"));
        t.registerSub("acl", "users", (s, a) -> s.out().array(1).bulk("default"));
        t.registerSub("acl", "list", (s, a) -> s.out().array(1).bulk("user default on " + password(s) + " ~* &* +@all"));
        t.registerSub("acl", "getuser", AclCommands::getuser);
        t.registerSub("acl", "cat", AclCommands::cat);
        t.registerSub("acl", "dryrun", AclCommands::dryrun);
        t.registerSub("acl", "genpass", AclCommands::genpass);
        t.registerSub("acl", "log", AclCommands::log);
        t.registerSub("acl", "deluser", AclCommands::deluser);
        t.registerSub("acl", "load", (s, a) -> {
            throw NO_ACL_FILE;
        });
        t.registerSub("acl", "save", (s, a) -> {
            throw NO_ACL_FILE;
        });
        t.registerSub("acl", "help", (s, a) -> Help.reply(s, "ACL",
                "CAT [<category>]",
                "    List all commands that belong to <category>, or all command categories",
                "    when no category is specified.",
                "DELUSER <username> [<username> ...]",
                "    Delete a list of users.",
                "DRYRUN <username> <command> [<arg> ...]",
                "    Returns whether the user can execute the given command without executing the command.",
                "GETUSER <username>",
                "    Get the user's details.",
                "GENPASS [<bits>]",
                "    Generate a secure 256-bit user password. The optional `bits` argument can",
                "    be used to specify a different size.",
                "LIST",
                "    Show users details in config file format.",
                "LOAD",
                "    Reload users from the ACL file.",
                "LOG [<count> | RESET]",
                "    Show the ACL log entries.",
                "SAVE",
                "    Save the current config to the ACL file.",
                "SETUSER <username> <attribute> [<attribute> ...]",
                "    Create or modify a user with the specified attributes.",
                "USERS",
                "    List all the registered usernames.",
                "WHOAMI",
                "    Return the current connection username."));
    }

    /** The default user's password rule: {@code nopass}, or {@code #<sha256 of requirepass>}. */
    private static String password(Session s) {
        String hash = passwordHash(s);
        return hash == null ? "nopass" : "#" + hash;
    }

    private static String passwordHash(Session s) {
        String pass = s.engine().config().requirepass.value();
        if (pass.isEmpty()) {
            return null;
        }
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(pass.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    // ACL GETUSER username
    static void getuser(Session s, Args a) {
        if (!a.string(2).equals("default")) { // user names are case-sensitive
            s.out().nullBulk();
            return;
        }
        String hash = passwordHash(s);
        ReplyBuffer out = s.out();
        out.map(6);
        out.bulk("flags");
        out.set(hash == null ? 2 : 1).bulk("on");
        if (hash == null) {
            out.bulk("nopass");
        }
        out.bulk("passwords");
        if (hash == null) {
            out.array(0);
        } else {
            out.array(1).bulk(hash);
        }
        out.bulk("commands").bulk("+@all");
        out.bulk("keys").bulk("~*");
        out.bulk("channels").bulk("&*");
        out.bulk("selectors").array(0);
    }

    // ACL CAT [category]
    static void cat(Session s, Args a) {
        if (a.count() > 3) {
            throw new RedisError("ERR unknown subcommand or wrong number of arguments for '" + a.string(1)
                    + "'. Try ACL HELP.");
        }
        if (a.count() == 2) {
            s.out().array(CATEGORIES.size());
            for (String c : CATEGORIES) {
                s.out().bulk(c);
            }
            return;
        }
        String category = a.string(2).toLowerCase(Locale.ROOT);
        if (!CATEGORIES.contains(category)) {
            throw new RedisError("ERR Unknown category '" + a.string(2) + "'");
        }
        List<String> names = new ArrayList<>();
        for (Command c : s.engine().commands().allWithSubcommands()) {
            if (categories(c).contains("@" + category)) {
                names.add(c.name());
            }
        }
        s.out().array(names.size());
        for (String n : names) {
            s.out().bulk(n);
        }
    }

    /** The command's ACL categories, from COMMAND INFO's seventh element ("@read", ...). */
    private static List<String> categories(Command c) {
        List<String> out = new ArrayList<>();
        if (c.spec().info() instanceof RespValue.Array info && info.items().size() > 6) {
            List<RespValue> cats = switch (info.items().get(6)) {
                case RespValue.Array arr -> arr.items();
                case RespValue.SetValue set -> set.items();
                default -> List.of();
            };
            for (RespValue v : cats) {
                String text = switch (v) {
                    case RespValue.SimpleString ss -> ss.value();
                    case RespValue.BulkString b -> new String(b.value(), StandardCharsets.US_ASCII);
                    default -> "";
                };
                out.add(text.startsWith("+") ? text.substring(1) : text);
            }
        }
        return out;
    }

    // ACL DRYRUN username command [arg ...]
    static void dryrun(Session s, Args a) {
        if (!a.string(2).equals("default")) { // user names are case-sensitive
            throw new RedisError("ERR User '" + a.string(2) + "' not found");
        }
        Command cmd = s.engine().commands().get(a.string(3));
        if (cmd == null) {
            throw new RedisError("ERR Command '" + a.string(3) + "' not found");
        }
        int argc = a.count() - 3;
        if (cmd.hasSubcommands() && argc >= 2) {
            Command sub = cmd.subcommand(a.string(4).toLowerCase(Locale.ROOT));
            if (sub != null) {
                cmd = sub;
            }
        }
        if (!cmd.spec().arityAccepts(argc)) {
            throw new RedisError("ERR wrong number of arguments for '" + cmd.name() + "' command");
        }
        s.out().ok(); // the default user may run everything
    }

    // ACL GENPASS [bits]
    static void genpass(Session s, Args a) {
        long bits = 256;
        if (a.count() > 2) {
            try {
                bits = a.parseLong(2);
            } catch (NumberFormatException e) {
                throw Errors.NOT_INTEGER;
            }
            if (bits <= 0 || bits > 4096) {
                throw new RedisError("ERR ACL GENPASS argument must be the number of bits for the output password, "
                        + "a positive number up to 4096");
            }
        }
        int chars = (int) ((bits + 3) / 4); // 4 bits per hex digit, rounded up
        byte[] random = new byte[(chars + 1) / 2];
        RANDOM.nextBytes(random);
        s.out().bulk(HexFormat.of().formatHex(random).substring(0, chars));
    }

    // ACL LOG [count | RESET]
    static void log(Session s, Args a) {
        if (a.count() > 3) {
            throw new RedisError("ERR unknown subcommand or wrong number of arguments for '" + a.string(1)
                    + "'. Try ACL HELP.");
        }
        long count = 10;
        if (a.count() == 3) {
            if (a.is(2, "RESET")) {
                s.engine().aclLog().reset();
                s.out().ok();
                return;
            }
            try {
                count = a.parseLong(2);
            } catch (NumberFormatException e) {
                throw Errors.NOT_INTEGER;
            }
        }
        List<AclLog.Entry> entries = s.engine().aclLog().newest(Math.max(0, count));
        long now = System.currentTimeMillis();
        ReplyBuffer out = s.out();
        out.array(entries.size());
        for (AclLog.Entry e : entries) {
            out.map(7);
            out.bulk("count").integer(e.count());
            out.bulk("reason").bulk(e.reason);
            out.bulk("context").bulk(e.context);
            out.bulk("object").bulk(e.object);
            out.bulk("username").bulk(e.username);
            out.bulk("age-seconds").doubleValue((now - e.createdMillis()) / 1000.0);
            out.bulk("client-info").bulk(e.clientInfo());
        }
    }

    // ACL DELUSER username [username ...]
    static void deluser(Session s, Args a) {
        for (int i = 2; i < a.count(); i++) {
            if (a.string(i).equals("default")) {
                throw new RedisError("ERR The 'default' user cannot be removed");
            }
        }
        s.out().integer(0);
    }
}
