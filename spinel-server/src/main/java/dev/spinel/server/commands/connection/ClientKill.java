package dev.spinel.server.commands.connection;

import java.nio.charset.StandardCharsets;

import dev.spinel.protocol.Args;
import dev.spinel.server.acl.User;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;

/**
 * CLIENT KILL, both forms, as Redis 7.0.15: {@code CLIENT KILL ip:port} (may kill the caller;
 * replies OK or "No such client") and {@code CLIENT KILL <filter> <value> ...} with ID, TYPE, ADDR,
 * LADDR, USER and SKIPME (replies the number killed). The caller, when it matches, is closed after
 * its reply.
 *
 * <p>Thread-safety: runs on the caller's loop; other clients are cut off with the thread-safe
 * {@link Session#kill()}: they execute nothing after it, and their sockets close on their own loops.
 */
final class ClientKill {
    private ClientKill() {
    }

    // CLIENT KILL ip:port | CLIENT KILL [ID id] [TYPE type] [USER user] [ADDR ip:port] [LADDR ip:port] [SKIPME yes|no]
    static void kill(Session s, Args a) {
        String addr = null;
        String laddr = null;
        int type = -1;
        long id = 0;
        boolean skipMe = true;
        User user = null;
        boolean oldForm = a.count() == 3;
        if (oldForm) {
            addr = a.string(2);
            skipMe = false; // the old form can kill the caller
        } else {
            for (int i = 2; i < a.count(); i += 2) {
                boolean more = a.count() > i + 1;
                if (a.is(i, "ID") && more) {
                    try {
                        id = a.parseLong(i + 1);
                    } catch (NumberFormatException e) {
                        throw new RedisError("ERR client-id should be greater than 0");
                    }
                    if (id < 1) {
                        throw new RedisError("ERR client-id should be greater than 0");
                    }
                } else if (a.is(i, "TYPE") && more) {
                    type = ClientInfo.typeByName(a.string(i + 1));
                    if (type < 0) {
                        throw new RedisError("ERR Unknown client type '" + a.cString(i + 1) + "'");
                    }
                } else if (a.is(i, "ADDR") && more) {
                    addr = a.string(i + 1);
                } else if (a.is(i, "LADDR") && more) {
                    laddr = a.string(i + 1);
                } else if (a.is(i, "USER") && more) {
                    user = s.engine().acl().user(new String(a.copy(i + 1), StandardCharsets.ISO_8859_1));
                    if (user == null) {
                        throw new RedisError("ERR No such user '" + a.cString(i + 1) + "'");
                    }
                } else if (a.is(i, "SKIPME") && more) {
                    if (a.is(i + 1, "YES")) {
                        skipMe = true;
                    } else if (a.is(i + 1, "NO")) {
                        skipMe = false;
                    } else {
                        throw Errors.SYNTAX;
                    }
                } else {
                    throw Errors.SYNTAX;
                }
            }
        }
        int killed = 0;
        boolean killSelf = false;
        for (Session c : s.engine().clients().all()) {
            if (addr != null && !addr.equals(c.connection().remoteAddress())) {
                continue;
            }
            if (laddr != null && !laddr.equals(c.connection().localAddress())) {
                continue;
            }
            if (type != -1 && ClientInfo.type(c) != type) {
                continue;
            }
            if (id != 0 && c.id() != id) {
                continue;
            }
            if (user != null && c.user() != user) {
                continue;
            }
            if (c == s && skipMe) {
                continue;
            }
            if (c == s) {
                killSelf = true;
            } else if (c.attachedReplica() && !s.connection().lent()) {
                // detached now, its socket closed after this command (an EXEC around it) has run whole: a replica
                // reconnecting at once (redis-server) must not PSYNC before the EXEC's writes are in the stream
                c.killAfterReplyOf(s);
            } else {
                c.kill(); // runs nothing more from now on, before this command's reply leaves
            }
            killed++;
        }
        if (oldForm) {
            if (killed == 0) {
                throw new RedisError("ERR No such client");
            }
            s.out().ok();
        } else {
            s.out().integer(killed);
        }
        if (killSelf) {
            s.closeAfterReply();
        }
    }
}
