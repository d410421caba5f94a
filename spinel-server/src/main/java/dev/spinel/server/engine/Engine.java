package dev.spinel.server.engine;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.store.Keyspace;

import java.nio.charset.StandardCharsets;

/**
 * The command engine: dispatches a parsed request to its command, with Redis's checks in Redis's
 * order (unknown command, arity, subcommand, authentication), statistics, and reply modes. Knows
 * nothing of sockets; the RESP front end and embedded callers drive it through {@link Session}s.
 *
 * <p>Thread-safety: one engine serves every event loop; a session is only ever used by its own loop.
 * Atomicity of each command comes from the stripe locks the command takes.
 */
public final class Engine {
    private final ServerConfig config;
    private final Keyspace keyspace;
    private final CommandTable commands;
    private final ClientRegistry clients = new ClientRegistry();
    private final ServerStats stats = new ServerStats();

    public Engine(ServerConfig config, Keyspace keyspace, CommandTable commands) {
        this.config = config;
        this.keyspace = keyspace;
        this.commands = commands;
    }

    public ServerConfig config() {
        return config;
    }

    public Keyspace keyspace() {
        return keyspace;
    }

    public CommandTable commands() {
        return commands;
    }

    public ClientRegistry clients() {
        return clients;
    }

    public ServerStats stats() {
        return stats;
    }

    public boolean authRequired() {
        return !config.requirepass.value().isEmpty();
    }

    /** Creates and registers the session of a new connection. */
    public Session open(ClientConnection connection) {
        Session s = new Session(this, clients.nextId(), connection);
        clients.add(s);
        stats.connectionsReceived.increment();
        return s;
    }

    public void close(Session s) {
        clients.remove(s);
    }

    /** Executes one request; its reply (or error) is appended to {@code session.out()}. */
    public void execute(Session session, Args args) {
        if (args.count() == 0) {
            return;
        }
        ReplyBuffer out = session.out();
        int mark = out.size();
        Command cmd = commands.lookup(args);
        if (cmd == null) {
            rejectUnknown(session, args);
            applyReplyMode(session, mark);
            return;
        }
        if (!cmd.spec().arityAccepts(args.count())) {
            reject(session, cmd, Errors.wrongArgs(cmd.name()).getMessage());
            applyReplyMode(session, mark);
            return;
        }
        if (cmd.hasSubcommands()) {
            Command sub = cmd.subcommand(lowerAscii(args, 1));
            if (sub == null) {
                reject(session, cmd, Errors.unknownSubcommand(args.string(1), cmd.upperName()).getMessage());
                applyReplyMode(session, mark);
                return;
            }
            if (!sub.spec().arityAccepts(args.count())) {
                reject(session, sub, Errors.wrongArgs(sub.name()).getMessage());
                applyReplyMode(session, mark);
                return;
            }
            cmd = sub;
        }
        if (!session.authenticated() && !cmd.spec().has("no_auth")) {
            reject(session, cmd, Errors.NOAUTH.getMessage());
            applyReplyMode(session, mark);
            return;
        }
        run(session, cmd, args);
        applyReplyMode(session, mark);
    }

    private void run(Session session, Command cmd, Args args) {
        long start = System.nanoTime();
        session.beginCommand(System.currentTimeMillis(), cmd.name());
        try {
            cmd.handler().execute(session, args);
        } catch (RedisError e) {
            session.out().error(e.getMessage());
            stats.error(e.code());
            cmd.failedCalls.increment();
        }
        cmd.calls.increment();
        cmd.micros.add((System.nanoTime() - start) / 1000);
        stats.commandsProcessed.increment();
    }

    private void rejectUnknown(Session session, Args args) {
        UnknownCommandReply.write(session.out(), args);
        stats.error("ERR");
    }

    private void reject(Session session, Command cmd, String message) {
        session.out().error(message);
        int sp = message.indexOf(' ');
        stats.error(sp < 0 ? message : message.substring(0, sp));
        cmd.rejectedCalls.increment();
    }

    private static void applyReplyMode(Session session, int mark) {
        switch (session.replyMode()) {
            case ON -> { }
            case OFF -> session.out().truncate(mark);
            case SKIP -> {
                session.out().truncate(mark);
                session.replyMode(Session.ReplyMode.ON);
            }
        }
    }

    private static String lowerAscii(Args args, int i) {
        byte[] b = new byte[args.length(i)];
        for (int k = 0; k < b.length; k++) {
            byte c = args.byteAt(i, k);
            b[k] = (c >= 'A' && c <= 'Z') ? (byte) (c + 32) : c;
        }
        return new String(b, StandardCharsets.ISO_8859_1);
    }
}
