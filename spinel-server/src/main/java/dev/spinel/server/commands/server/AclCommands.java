package dev.spinel.server.commands.server;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.CommandSpec;
import dev.spinel.server.acl.Acl;
import dev.spinel.server.acl.AclDescriptions;
import dev.spinel.server.acl.AclFile;
import dev.spinel.server.acl.AclLog;
import dev.spinel.server.acl.CommandIds;
import dev.spinel.server.acl.User;
import dev.spinel.server.acl.UserRules;
import dev.spinel.server.commands.common.Help;
import dev.spinel.server.commands.connection.ClientInfo;
import dev.spinel.store.ByteKey;
import dev.spinel.server.engine.Command;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.engine.pubsub.PubSub;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;
import dev.spinel.server.log.Log;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;

/**
 * ACL CAT, DELUSER, DRYRUN, GENPASS, GETUSER, HELP, LIST, LOAD, LOG, SAVE, SETUSER, USERS, WHOAMI over
 * the server's {@link Acl}. Names, patterns and passwords are taken as bytes (ISO-8859-1 text).
 *
 * <p>Thread-safety: handlers run on the caller's event loop; the user table is the {@link Acl}'s.
 */
public final class AclCommands {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final RedisError NO_ACL_FILE = new RedisError("ERR This Redis instance is not configured to use "
            + "an ACL file. You may want to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE "
            + "(assuming you have a Redis configuration file set) in order to store users in the Redis configuration.");

    private AclCommands() {
    }

    public static void register(CommandTable t, Engine engine) {
        engine.hooks().clientInfo(ClientInfo::line);
        t.register("acl", (s, a) -> {
            throw Errors.SYNTAX;
        });
        t.registerSub("acl", "cat", AclCommands::cat);
        t.registerSub("acl", "deluser", AclCommands::deluser);
        t.registerSub("acl", "dryrun", AclCommands::dryrun);
        t.registerSub("acl", "genpass", AclCommands::genpass);
        t.registerSub("acl", "getuser", AclCommands::getuser);
        t.registerSub("acl", "help", AclCommands::help);
        t.registerSub("acl", "list", (s, a) -> list(s, false));
        t.registerSub("acl", "users", (s, a) -> list(s, true));
        t.registerSub("acl", "load", AclCommands::load);
        t.registerSub("acl", "save", AclCommands::save);
        t.registerSub("acl", "log", AclCommands::log);
        t.registerSub("acl", "setuser", AclCommands::setuser);
        t.registerSub("acl", "whoami", (s, a) -> s.out().bulk(bytes(s.user().name())));
    }

    private static String text(Args a, int i) {
        return new String(a.copy(i), StandardCharsets.ISO_8859_1);
    }

    private static byte[] bytes(String isoText) {
        return isoText.getBytes(StandardCharsets.ISO_8859_1);
    }

    // ACL SETUSER username [rule [rule ...]]
    static void setuser(Session s, Args a) {
        String name = text(a, 2);
        if (hasSpaces(name)) {
            throw new RedisError("ERR Usernames can't contain spaces or null characters");
        }
        List<String> args = new ArrayList<>();
        for (int i = 3; i < a.count(); i++) {
            args.add(text(a, i));
        }
        List<String> ops = AclFile.mergeSelectors(args);
        if (ops == null) {
            throw new RedisError("ERR Unmatched parenthesis in acl selector starting at '"
                    + args.get(AclFile.unmatchedSelector(args)) + "'.");
        }
        User before = s.engine().acl().user(name);
        UserRules old = before == null ? null : before.rules();
        String err = s.engine().acl().setUser(name, ops);
        if (err != null) {
            throw new RedisError(err);
        }
        if (old != null && Acl.channelsMayBeRevoked(old, before.rules())) {
            closeRevokedSubscribers(s, before);
        }
        s.out().ok();
    }

    /**
     * Subscribers of {@code user} holding a channel or pattern its new rules no longer allow are
     * disconnected, as Redis does; each is checked on its own event loop (its subscriptions live there).
     */
    private static void closeRevokedSubscribers(Session s, User user) {
        for (Session c : s.engine().clients().all()) {
            if (c.user() != user) {
                continue;
            }
            c.connection().execute(() -> {
                if (c.user() != user || !c.hasSubscriptions()) {
                    return;
                }
                UserRules rules = user.rules();
                boolean kill = false;
                for (PubSub.Kind kind : PubSub.Kind.values()) {
                    for (ByteKey channel : c.subscriptions().set(kind)) {
                        kill |= !Acl.subscriptionAllowed(rules, channel.bytes(), kind == PubSub.Kind.PATTERN);
                    }
                }
                if (kill) {
                    c.kill();
                }
            });
        }
    }

    private static boolean hasSpaces(String name) {
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c == 0 || c == ' ' || (c >= '\t' && c <= '\r')) {
                return true;
            }
        }
        return false;
    }

    // ACL DELUSER username [username ...]
    static void deluser(Session s, Args a) {
        List<String> names = new ArrayList<>();
        for (int i = 2; i < a.count(); i++) {
            names.add(text(a, i));
            if (names.getLast().equals("default")) {
                throw new RedisError("ERR The 'default' user cannot be removed");
            }
        }
        List<User> deleted = s.engine().acl().delete(names);
        disconnect(s, new HashSet<>(deleted));
        s.out().integer(deleted.size());
    }

    /** Closes the connections authenticated as these users (the caller's after its reply), as Redis. */
    static void disconnect(Session s, Set<User> users) {
        if (users.isEmpty()) {
            return;
        }
        User dflt = s.engine().acl().defaultUser();
        for (Session c : s.engine().clients().all()) {
            if (!users.contains(c.user())) {
                continue;
            }
            c.user(dflt);
            c.authenticated(false);
            if (c == s) {
                s.closeAfterReply();
            } else {
                c.kill(); // before this command replies: the user's connections run nothing more
            }
        }
    }

    // ACL GETUSER username
    static void getuser(Session s, Args a) {
        User u = s.engine().acl().user(text(a, 2));
        if (u == null) {
            s.out().nullBulk();
            return;
        }
        UserRules r = u.rules();
        List<String> flags = AclDescriptions.flags(r);
        s.out().map(6);
        s.out().bulk("flags").set(flags.size());
        for (String f : flags) {
            s.out().bulk(f);
        }
        List<String> passwords = AclDescriptions.passwords(r);
        s.out().bulk("passwords").array(passwords.size());
        for (String p : passwords) {
            s.out().bulk(p);
        }
        List<String[]> selectors = AclDescriptions.selectors(r);
        selector(s, selectors.getFirst());
        s.out().bulk("selectors").array(selectors.size() - 1);
        for (int i = 1; i < selectors.size(); i++) {
            s.out().map(3);
            selector(s, selectors.get(i));
        }
    }

    private static void selector(Session s, String[] d) {
        s.out().bulk("commands").bulk(bytes(d[0]));
        s.out().bulk("keys").bulk(bytes(d[1]));
        s.out().bulk("channels").bulk(bytes(d[2]));
    }

    // ACL LIST | ACL USERS
    static void list(Session s, boolean namesOnly) {
        List<User> users = s.engine().acl().users();
        s.out().array(users.size());
        for (User u : users) {
            s.out().bulk(bytes(namesOnly ? u.name() : Acl.describe(u)));
        }
    }

    /** More arguments than a subcommand takes (its arity is open-ended): Redis's syntax error. */
    private static void atMost(Session s, Args a, int argc) {
        if (a.count() > argc) {
            throw new RedisError("ERR unknown subcommand or wrong number of arguments for '" + a.cString(1)
                    + "'. Try ACL HELP.");
        }
    }

    // ACL CAT [category]
    static void cat(Session s, Args a) {
        atMost(s, a, 3);
        if (a.count() == 2) {
            s.out().array(CommandIds.CATEGORIES.size());
            for (String c : CommandIds.CATEGORIES) {
                s.out().bulk(c);
            }
            return;
        }
        List<String> names = AclDescriptions.commandsIn(a.string(2));
        if (names == null) {
            String cat = a.string(2);
            throw new RedisError("ERR Unknown category '" + (cat.length() > 128 ? cat.substring(0, 128) : cat) + "'");
        }
        s.out().array(names.size());
        for (String n : names) {
            s.out().bulk(n);
        }
    }

    // ACL GENPASS [bits]
    static void genpass(Session s, Args a) {
        atMost(s, a, 3);
        long bits = 256;
        if (a.count() == 3) {
            try {
                bits = a.parseLong(2);
            } catch (NumberFormatException e) {
                throw Errors.NOT_INTEGER;
            }
        }
        if (bits <= 0 || bits > 4096) {
            throw new RedisError("ERR ACL GENPASS argument must be the number of bits for the output password, "
                    + "a positive number up to 4096");
        }
        int chars = (int) ((bits + 3) / 4);
        byte[] random = new byte[(chars + 1) / 2];
        RANDOM.nextBytes(random);
        s.out().bulk(HexFormat.of().formatHex(random).substring(0, chars));
    }

    // ACL LOG [count | RESET]
    static void log(Session s, Args a) {
        atMost(s, a, 3);
        long count = 10;
        if (a.count() == 3) {
            if (a.is(2, "RESET")) {
                s.engine().acl().log().reset();
                s.out().ok();
                return;
            }
            try {
                count = Math.max(0, a.parseLong(2));
            } catch (NumberFormatException e) {
                throw Errors.NOT_INTEGER;
            }
        }
        List<AclLog.Entry> entries = s.engine().acl().log().newest(count);
        long now = System.currentTimeMillis();
        s.out().array(entries.size());
        for (AclLog.Entry e : entries) {
            s.out().map(7);
            s.out().bulk("count").integer(e.count);
            s.out().bulk("reason").bulk(e.reason);
            s.out().bulk("context").bulk(e.context);
            s.out().bulk("object").bulk(bytes(e.object));
            s.out().bulk("username").bulk(bytes(e.username));
            s.out().bulk("age-seconds").doubleValue((now - e.createdAt) / 1000.0);
            s.out().bulk("client-info").bulk(bytes(e.clientInfo));
        }
    }

    // ACL DRYRUN username command [arg ...]
    static void dryrun(Session s, Args a) {
        User u = s.engine().acl().user(text(a, 2));
        if (u == null) {
            throw new RedisError("ERR User '" + a.cString(2) + "' not found");
        }
        Command named = s.engine().commands().visible(text(a, 3)); // the name a client calls it by (rename-command)
        int id = named == null || text(a, 3).indexOf('|') >= 0 ? -1 : CommandIds.resolve(named.name(), a, 3);
        if (id < 0) {
            throw new RedisError("ERR Command '" + a.cString(3) + "' not found");
        }
        CommandSpec spec = CommandIds.spec(id);
        if (!spec.arityAccepts(a.count() - 3)) {
            throw Errors.wrongArgs(spec.name());
        }
        long denied = Acl.check(u.rules(), id, spec, spec.has("no_auth"), a, 3);
        if (denied == 0) {
            s.out().ok();
            return;
        }
        int reason = (int) (denied >>> 32);
        String msg = reason == Acl.DENIED_CMD ? "This user has no permissions to run the '" + spec.name() + "' command"
                : "This user has no permissions to access the '" + text(a, 3 + (int) denied) + "' "
                + (reason == Acl.DENIED_KEY ? "key" : "channel");
        s.out().bulk(bytes(msg));
    }

    // ACL LOAD
    static void load(Session s, Args a) {
        String file = s.engine().config().aclfile.value();
        if (file.isEmpty()) {
            throw NO_ACL_FILE;
        }
        List<User> replaced;
        try {
            replaced = AclFile.load(s.engine().acl(), aclPath(s, file), file);
        } catch (IllegalArgumentException e) {
            throw new RedisError("ERR " + e.getMessage());
        }
        disconnect(s, new HashSet<>(replaced));
        s.out().ok();
    }

    // ACL SAVE
    static void save(Session s, Args a) {
        String file = s.engine().config().aclfile.value();
        if (file.isEmpty()) {
            throw NO_ACL_FILE;
        }
        try {
            AclFile.save(s.engine().acl(), aclPath(s, file));
        } catch (IOException e) {
            Log.warning("Writing ACL file for ACL SAVE: " + e);
            throw new RedisError("ERR There was an error trying to save the ACLs. Please check the server logs for "
                    + "more information");
        }
        s.out().ok();
    }

    /** The ACL file: a relative name is in {@code dir}, as Redis (which runs in its dir). */
    public static Path aclPath(Session s, String file) {
        return Path.of(s.engine().config().dir.value()).resolve(file);
    }

    // ACL HELP
    static void help(Session s, Args a) {
        Help.reply(s, "ACL",
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
                "    Return the current connection username.");
    }
}
