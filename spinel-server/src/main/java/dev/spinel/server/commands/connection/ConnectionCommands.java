package dev.spinel.server.commands.connection;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.Version;
import dev.spinel.server.acl.Acl;
import dev.spinel.server.acl.AclLog;
import dev.spinel.server.acl.User;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;

import java.nio.charset.StandardCharsets;

/**
 * Connection commands: PING, ECHO, QUIT, SELECT, AUTH, HELLO, RESET. AUTH and HELLO AUTH log in as
 * an ACL user ({@link Acl}); without a user name, as "default", whose password
 * is {@code requirepass}.
 *
 * <p>Thread-safety: handlers run on the session's event loop and touch only that session.
 */
public final class ConnectionCommands {
    private static final RedisError AUTH_WITHOUT_PASSWORD = new RedisError("ERR AUTH <password> called without any "
            + "password configured for the default user. Are you sure your configuration is correct?");
    private static final RedisError WRONGPASS =
            new RedisError("WRONGPASS invalid username-password pair or user is disabled.");
    private static final RedisError NOPROTO = new RedisError("NOPROTO unsupported protocol version");
    private static final RedisError BAD_PROTO =
            new RedisError("ERR Protocol version is not an integer or out of range");
    private static final RedisError HELLO_NOAUTH = new RedisError("NOAUTH HELLO must be called with the client "
            + "already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to "
            + "authenticate the client and select the RESP protocol version at the same time");

    private ConnectionCommands() {
    }

    public static void register(CommandTable t) {
        t.register("ping", ConnectionCommands::ping);
        t.register("echo", ConnectionCommands::echo);
        t.register("quit", ConnectionCommands::quit);
        t.register("select", ConnectionCommands::select);
        t.register("auth", ConnectionCommands::auth);
        t.register("hello", ConnectionCommands::hello);
        t.register("reset", ConnectionCommands::reset);
    }

    // PING [message]
    static void ping(Session s, Args a) {
        if (a.count() > 2) {
            throw Errors.wrongArgs("ping");
        }
        if (s.hasSubscriptions() && s.protocol() == 2) {
            // RESP2 subscribed mode answers in the shape of a message.
            s.out().array(2).bulk("pong");
            if (a.count() == 2) {
                s.out().bulk(a.buffer(), a.offset(1), a.length(1));
            } else {
                s.out().bulk(new byte[0]);
            }
            return;
        }
        if (a.count() == 2) {
            s.out().bulk(a.buffer(), a.offset(1), a.length(1));
        } else {
            s.out().simple("PONG");
        }
    }

    // ECHO message
    static void echo(Session s, Args a) {
        s.out().bulk(a.buffer(), a.offset(1), a.length(1));
    }

    // QUIT
    static void quit(Session s, Args a) {
        s.out().ok();
        s.closeAfterReply();
    }

    // SELECT index
    static void select(Session s, Args a) {
        long idx;
        try {
            idx = a.parseLong(1);
        } catch (NumberFormatException e) {
            throw Errors.NOT_INTEGER;
        }
        if (idx != 0 && s.engine().config().clusterEnabled.value()) {
            throw new RedisError("ERR SELECT is not allowed in cluster mode");
        }
        if (idx < 0 || idx >= s.engine().keyspace().databases()) {
            throw Errors.DB_INDEX;
        }
        s.select((int) idx);
        s.out().ok();
    }

    // AUTH [username] password
    static void auth(Session s, Args a) {
        if (a.count() > 3) {
            throw Errors.SYNTAX;
        }
        boolean ok;
        if (a.count() == 2) {
            // Redis keeps the old error for the one-argument form when the default user has no password.
            if (s.engine().acl().defaultUser().rules().nopass()) {
                throw AUTH_WITHOUT_PASSWORD;
            }
            ok = authenticate(s, null, a, 1);
        } else {
            ok = authenticate(s, a, a, 2);
        }
        if (!ok) {
            throw WRONGPASS;
        }
        s.out().ok();
    }

    /**
     * Checks a user name (argument {@code pass - 1} of {@code user}; null means "default") and the
     * password at argument {@code pass}; on success the session is authenticated. A failure leaves
     * the session's state as it was, as in Redis.
     */
    private static boolean authenticate(Session s, Args user, Args a, int pass) {
        String name = user == null ? "default" : new String(a.copy(pass - 1), StandardCharsets.ISO_8859_1);
        User u = s.engine().acl().authenticate(name, a.copy(pass));
        if (u == null) {
            // ACL LOG: the command as typed, the user name tried.
            s.engine().logAcl(s, "auth", s.transaction() != null || s.executingTransaction() ? AclLog.MULTI : AclLog.TOPLEVEL,
                    new String(a.copy(0), StandardCharsets.ISO_8859_1), name);
            return false;
        }
        s.user(u);
        s.authenticated(true);
        return true;
    }

    // HELLO [protover [AUTH username password] [SETNAME clientname]]
    static void hello(Session s, Args a) {
        long version = 0;
        if (a.count() >= 2) {
            try {
                version = a.parseLong(1);
            } catch (NumberFormatException e) {
                throw BAD_PROTO;
            }
            if (version < 2 || version > 3) {
                throw NOPROTO;
            }
        }
        // Redis 7.0 applies each option as it reads it: an earlier AUTH or SETNAME takes effect even
        // when a later option is wrong, and SETNAME works before authentication.
        for (int j = 2; j < a.count(); j++) {
            int more = a.count() - 1 - j;
            if (a.is(j, "AUTH") && more >= 2) {
                if (!authenticate(s, a, a, j + 2)) {
                    throw WRONGPASS;
                }
                j += 2;
            } else if (a.is(j, "SETNAME") && more >= 1) {
                ClientCommands.setName(s, a, j + 1);
                j++;
            } else {
                throw new RedisError("ERR Syntax error in HELLO option '" + a.cString(j) + "'");
            }
        }
        if (!s.authenticated()) {
            throw HELLO_NOAUTH;
        }
        if (version != 0) {
            s.protocol((int) version);
        }
        s.out().map(7);
        s.out().bulk("server").bulk("redis");
        s.out().bulk("version").bulk(Version.REDIS);
        s.out().bulk("proto").integer(s.protocol());
        s.out().bulk("id").integer(s.id());
        s.out().bulk("mode").bulk(s.engine().config().clusterEnabled.value() ? "cluster" : "standalone");
        s.out().bulk("role").bulk("master");
        s.out().bulk("modules").array(0);
    }

    // RESET
    static void reset(Session s, Args a) {
        s.reset();
        s.out().simple("RESET");
    }
}
