package dev.spinel.server.commands;

import dev.spinel.protocol.Args;
import dev.spinel.server.SpinelServer;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Errors;
import dev.spinel.server.engine.Session;

/** Connection commands: PING, ECHO, QUIT, SELECT, HELLO, AUTH, RESET. */
public final class ConnectionCommands {
    private ConnectionCommands() {
    }

    public static void register(CommandTable t, SpinelServer server) {
        t.register("ping", ConnectionCommands::ping);
        t.register("echo", ConnectionCommands::echo);
        t.register("quit", ConnectionCommands::quit);
        t.register("select", ConnectionCommands::select);
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
        if (idx < 0 || idx >= s.engine().keyspace().databases()) {
            throw Errors.DB_INDEX;
        }
        s.select((int) idx);
        s.out().ok();
    }
}
