package dev.spinel.server.engine;

import dev.spinel.protocol.Args;
import dev.spinel.server.engine.ports.BusyScript;
import dev.spinel.server.engine.ports.ClientConnection;
import dev.spinel.server.log.Log;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Runs the scripts of event-loop clients (EVAL, EVALSHA, FCALL and their read-only forms) on a thread of
 * their own, so that the caller's loop keeps serving its other clients while a script runs: they wait for
 * it until it is busy ({@link BusyScript#awaitEndOrBusy}), then get BUSY or run
 * SCRIPT KILL, FUNCTION KILL, SHUTDOWN NOSAVE... as in Redis. The caller's connection is lent to this thread ({@link ClientConnection#lend})
 * for the whole command: the script uses the caller's session (CLIENT ID, database, user) as on the loop,
 * and the caller's pipelined requests stay queued behind the script. Scripts run one at a time (each holds
 * every stripe anyway). An EXEC whose queue holds a script runs here as well (its loop's other clients then
 * get BUSY and may kill the script, as in Redis). A script run by a session without a lendable connection
 * runs inline on its caller's thread.
 *
 * <p>Thread-safety: {@link #submit} from any loop; the executor's one thread runs the scripts and stops
 * after a minute without work.
 */
final class ScriptThread {
    private final Engine engine;
    private final ThreadPoolExecutor executor;

    ScriptThread(Engine engine) {
        this.engine = engine;
        this.executor = new ThreadPoolExecutor(1, 1, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "spinel-script");
            t.setDaemon(true); // a script that never ends must not keep the process alive
            return t;
        });
        executor.allowCoreThreadTimeOut(true);
    }

    /**
     * Lends {@code session}'s connection and runs {@code cmd} on the script thread; its reply is sent when
     * the connection is given back. On the session's loop, after the request's dispatch.
     */
    void submit(Session session, Command cmd, Args args) {
        Args request = copy(args); // the parser's slices point into the receive buffer, which later reads reuse
        ClientConnection c = session.connection();
        c.lend();
        executor.execute(() -> {
            try {
                engine.runner().runLent(session, cmd, request);
            } catch (Throwable t) {
                Log.warning("Error running " + cmd.name() + " on the script thread: " + t);
            } finally {
                c.giveBack();
            }
        });
    }

    private static Args copy(Args a) {
        byte[][] parts = new byte[a.count()][];
        for (int i = 0; i < parts.length; i++) {
            parts[i] = a.copy(i);
        }
        return Args.of(parts);
    }
}
