package dev.spinel.server.commands.server;

import dev.spinel.protocol.Args;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Session;
import dev.spinel.server.engine.ports.BusyScript;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;

import java.time.Instant;

/**
 * Server commands: TIME, LASTSAVE, SHUTDOWN; registers the other server-level families: INFO
 * ({@link InfoCommand}), COMMAND ({@link CommandCommand}), DEBUG ({@link DebugCommand}), FUNCTION
 * MEMORY ({@link MemoryCommands}).
 *
 * <p>Thread-safety: stateless; each handler runs on its connection's event loop.
 */
public final class ServerCommands {
    private ServerCommands() {
    }

    public static void register(CommandTable t, ServerControl server) {
        t.register("time", ServerCommands::time);
        t.register("shutdown", (s, a) -> shutdown(server, s, a));
        DebugCommand.register(t, server);
        MemoryCommands.register(t, server.scripting());
        InfoCommand.register(t, server);
        CommandCommand.register(t);
    }

    /** Whether the client is connected over loopback, for the "local" protected-action settings. */
    static boolean isLocal(Session s) {
        String addr = s.connection().remoteAddress();
        return addr.startsWith("127.") || addr.startsWith("[::1]") || addr.startsWith("::1")
                || addr.startsWith("0:0:0:0:0:0:0:1") || addr.startsWith("[0:0:0:0:0:0:0:1]");
    }

    // TIME
    static void time(Session s, Args a) {
        Instant now = Instant.now();
        s.out().array(2);
        s.out().bulk(now.getEpochSecond());
        s.out().bulk(now.getNano() / 1000);
    }

    // SHUTDOWN [NOSAVE | SAVE] [NOW] [FORCE] [ABORT]
    static void shutdown(ServerControl server, Session s, Args a) {
        boolean nosave = false;
        boolean save = false;
        boolean force = false;
        boolean abort = false;
        boolean now = false;
        for (int i = 1; i < a.count(); i++) {
            if (a.is(i, "NOSAVE")) {
                nosave = true;
            } else if (a.is(i, "SAVE")) {
                save = true;
            } else if (a.is(i, "NOW")) {
                now = true;
            } else if (a.is(i, "FORCE")) {
                force = true;
            } else if (a.is(i, "ABORT")) {
                abort = true;
            } else {
                throw Errors.SYNTAX;
            }
        }
        if ((abort && (nosave || save || force || now)) || (nosave && save)) {
            throw Errors.SYNTAX;
        }
        if (abort) {
            if (!server.shutdownWait().abort()) {
                throw new RedisError("ERR No shutdown in progress.");
            }
            s.out().ok();
            return;
        }
        if (!now && s.denyBlocking()) {
            throw new RedisError("ERR SHUTDOWN without NOW or ABORT isn't allowed for DENY BLOCKING client");
        }
        BusyScript scripting = s.engine().script();
        if (!nosave && scripting.busy(s.engine().config().busyReplyThreshold.value())) {
            // Redis 7.0: while a script is busy only SHUTDOWN NOSAVE stops the server (SAVE, NOW, FORCE included).
            throw new RedisError(scripting.functionRunning()
                    ? "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE."
                    : "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.");
        }
        int flags = (save ? ShutdownFlow.SAVE : 0) | (nosave ? ShutdownFlow.NOSAVE : 0) | (now ? ShutdownFlow.NOW : 0)
                | (force ? ShutdownFlow.FORCE : 0);
        switch (ShutdownFlow.prepare(server, s, flags)) {
            case WAITING -> { } // the end of the replicas' wait answers
            case FAILED -> throw new RedisError("ERR Errors trying to SHUTDOWN. Check logs.");
            case STOPPING -> s.closeAfterReply(); // Redis exits without replying; the connection closes with the server
        }
    }

    public static String truncate(String v) {
        return v.length() > 128 ? v.substring(0, 128) : v;
    }
}
