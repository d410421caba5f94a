package dev.spinel.server.commands.connection;

import dev.spinel.protocol.Args;
import dev.spinel.server.engine.clients.ClientPause;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;

import java.nio.charset.StandardCharsets;

/**
 * CLIENT subcommands, as Redis 7.0.15: ID, INFO, LIST, KILL, SETNAME, GETNAME, REPLY, NO-EVICT,
 * PAUSE, UNPAUSE, UNBLOCK, GETREDIR, TRACKINGINFO, HELP. (SETINFO and NO-TOUCH are 7.2 and are not part of
 * 7.0.)
 *
 * <p>Thread-safety: handlers run on the caller's event loop; they read other sessions through the
 * client registry (informational fields) and close them with the thread-safe {@code kill()}.
 */
public final class ClientCommands {
    private static final RedisError BAD_NAME =
            new RedisError("ERR Client names cannot contain spaces, newlines or special characters.");
    private static final RedisError BAD_ID = new RedisError("ERR client-id should be greater than 0");
    private static final String[] HELP = {
            "CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
            "CACHING (YES|NO)",
            "    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
            "GETREDIR",
            "    Return the client ID we are redirecting to when tracking is enabled.",
            "GETNAME",
            "    Return the name of the current connection.",
            "ID",
            "    Return the ID of the current connection.",
            "INFO",
            "    Return information about the current client connection.",
            "KILL <ip:port>",
            "    Kill connection made from <ip:port>.",
            "KILL <option> <value> [<option> <value> [...]]",
            "    Kill connections. Options are:",
            "    * ADDR (<ip:port>|<unixsocket>:0)",
            "      Kill connections made from the specified address",
            "    * LADDR (<ip:port>|<unixsocket>:0)",
            "      Kill connections made to specified local address",
            "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
            "      Kill connections by type.",
            "    * USER <username>",
            "      Kill connections authenticated by <username>.",
            "    * SKIPME (YES|NO)",
            "      Skip killing current connection (default: yes).",
            "LIST [options ...]",
            "    Return information about client connections. Options:",
            "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
            "      Return clients of specified type.",
            "UNPAUSE",
            "    Stop the current client pause, resuming traffic.",
            "PAUSE <timeout> [WRITE|ALL]",
            "    Suspend all, or just write, clients for <timeout> milliseconds.",
            "REPLY (ON|OFF|SKIP)",
            "    Control the replies sent to the current connection.",
            "SETNAME <name>",
            "    Assign the name <name> to the current connection.",
            "UNBLOCK <clientid> [TIMEOUT|ERROR]",
            "    Unblock the specified blocked client.",
            "TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
            "         [OPTIN] [OPTOUT] [NOLOOP]",
            "    Control server assisted client side caching.",
            "TRACKINGINFO",
            "    Report tracking status for the current connection.",
            "NO-EVICT (ON|OFF)",
            "    Protect current client connection from eviction.",
            "HELP",
            "    Prints this help.",
    };

    private ClientCommands() {
    }

    public static void register(CommandTable t) {
        // The container itself never runs: the engine dispatches to a subcommand or answers "unknown subcommand".
        t.register("client", (s, a) -> {
            throw Errors.unknownSubcommand(a.cString(1), "CLIENT");
        });
        t.registerSub("client", "help", ClientCommands::help);
        t.registerSub("client", "id", (s, a) -> s.out().integer(s.id()));
        t.registerSub("client", "info", ClientCommands::info);
        t.registerSub("client", "list", ClientCommands::list);
        t.registerSub("client", "kill", ClientKill::kill);
        t.registerSub("client", "setname", ClientCommands::setname);
        t.registerSub("client", "getname", ClientCommands::getname);
        t.registerSub("client", "reply", ClientCommands::reply);
        t.registerSub("client", "no-evict", ClientCommands::noEvict);
        t.registerSub("client", "pause", ClientCommands::pause);
        t.registerSub("client", "unpause", ClientCommands::unpause);
        t.registerSub("client", "unblock", ClientCommands::unblock);
    }

    // CLIENT HELP
    static void help(Session s, Args a) {
        s.out().array(HELP.length);
        for (String line : HELP) {
            s.out().simple(line);
        }
    }

    // CLIENT INFO
    static void info(Session s, Args a) {
        StringBuilder sb = ClientInfo.append(new StringBuilder(), s, s.now(), a);
        s.out().verbatim(sb.append('\n').toString());
    }

    // CLIENT LIST [TYPE NORMAL|MASTER|REPLICA|PUBSUB] [ID client-id [client-id ...]]
    static void list(Session s, Args a) {
        StringBuilder sb = new StringBuilder();
        if (a.count() == 4 && a.is(2, "TYPE")) {
            int type = ClientInfo.typeByName(a.string(3));
            if (type < 0) {
                throw new RedisError("ERR Unknown client type '" + a.cString(3) + "'");
            }
            for (Session c : s.engine().clients().all()) {
                if (ClientInfo.type(c) == type) {
                    line(sb, s, c, a);
                }
            }
        } else if (a.count() > 3 && a.is(2, "ID")) {
            long[] ids = new long[a.count() - 3];
            for (int j = 3; j < a.count(); j++) {
                try {
                    ids[j - 3] = a.parseLong(j);
                } catch (NumberFormatException e) {
                    throw new RedisError("ERR Invalid client ID");
                }
            }
            for (long id : ids) {
                Session c = s.engine().clients().get(id);
                if (c != null) {
                    line(sb, s, c, a);
                }
            }
        } else if (a.count() != 2) {
            throw Errors.SYNTAX;
        } else {
            for (Session c : s.engine().clients().all()) {
                line(sb, s, c, a);
            }
        }
        s.out().verbatim(sb.toString());
    }

    private static void line(StringBuilder sb, Session self, Session c, Args a) {
        ClientInfo.append(sb, c, self.now(), c == self ? a : null).append('\n');
    }

    // CLIENT SETNAME connection-name
    static void setname(Session s, Args a) {
        setName(s, a, 2);
        s.out().ok();
    }

    /** Validates and sets the name at argument {@code i} (CLIENT SETNAME, HELLO SETNAME); empty clears it. */
    static void setName(Session s, Args a, int i) {
        int len = a.length(i);
        for (int k = 0; k < len; k++) {
            byte c = a.byteAt(i, k);
            if (c < '!' || c > '~') { // Redis allows printable ASCII without spaces only
                throw BAD_NAME;
            }
        }
        s.name(new String(a.buffer(), a.offset(i), len, StandardCharsets.US_ASCII));
    }

    // CLIENT GETNAME
    static void getname(Session s, Args a) {
        if (s.name().isEmpty()) {
            s.out().nullBulk();
        } else {
            s.out().bulk(s.name());
        }
    }

    // CLIENT REPLY ON|OFF|SKIP
    static void reply(Session s, Args a) {
        if (a.is(2, "ON")) {
            s.replyMode(Session.ReplyMode.ON);
            s.out().ok();
        } else if (a.is(2, "OFF")) {
            s.replyMode(Session.ReplyMode.OFF);
        } else if (a.is(2, "SKIP")) {
            // Ignored while replies are off, as in Redis.
            if (s.replyMode() != Session.ReplyMode.OFF) {
                s.replyMode(Session.ReplyMode.SKIP_NEXT);
            }
        } else {
            throw Errors.SYNTAX;
        }
    }

    // CLIENT NO-EVICT ON|OFF
    static void noEvict(Session s, Args a) {
        if (a.is(2, "ON")) {
            s.noEvict(true);
        } else if (a.is(2, "OFF")) {
            s.noEvict(false);
        } else {
            throw Errors.SYNTAX;
        }
        s.out().ok();
    }

    // CLIENT PAUSE timeout [WRITE|ALL]
    static void pause(Session s, Args a) {
        if (a.count() > 4) {
            throw new RedisError("ERR unknown subcommand or wrong number of arguments for '" + a.cString(1)
                    + "'. Try CLIENT HELP.");
        }
        int type = ClientPause.ALL;
        if (a.count() == 4) {
            if (a.is(3, "WRITE")) {
                type = ClientPause.WRITE;
            } else if (!a.is(3, "ALL")) {
                throw new RedisError("ERR CLIENT PAUSE mode must be WRITE or ALL");
            }
        }
        long timeout;
        try {
            timeout = a.parseLong(2);
        } catch (NumberFormatException e) {
            throw new RedisError("ERR timeout is not an integer or out of range");
        }
        if (timeout < 0) {
            throw new RedisError("ERR timeout is negative");
        }
        // As Redis 7.0: a positive timeout is relative (it may wrap, ending the pause at once); 0 ends now.
        long end = timeout > 0 ? timeout + s.now() : 0;
        s.engine().pause().pause(end, type);
        s.out().ok();
    }

    // CLIENT UNBLOCK client-id [TIMEOUT | ERROR]
    static void unblock(Session s, Args a) {
        if (a.count() > 4) {
            throw new RedisError("ERR unknown subcommand or wrong number of arguments for '" + a.cString(1)
                    + "'. Try CLIENT HELP.");
        }
        boolean error = false;
        if (a.count() == 4) { // Redis checks the reason before the id
            if (a.is(3, "TIMEOUT")) {
                error = false;
            } else if (a.is(3, "ERROR")) {
                error = true;
            } else {
                throw new RedisError("ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR");
            }
        }
        long id;
        try {
            id = a.parseLong(2);
        } catch (NumberFormatException e) {
            throw Errors.NOT_INTEGER;
        }
        s.out().integer(s.engine().blocking().unblock(id, error) ? 1 : 0);
    }

    // CLIENT UNPAUSE
    static void unpause(Session s, Args a) {
        s.engine().pause().unpause();
        s.out().ok();
    }

}
