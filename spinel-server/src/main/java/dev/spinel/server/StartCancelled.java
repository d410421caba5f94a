package dev.spinel.server;

/**
 * Thrown by {@link SpinelServer#start} when the server was shut down before its start ended: a SHUTDOWN from a
 * client served during the start-up load (as Redis, it never saves then). The server is closed; the process
 * exits with status 0, as Redis's does.
 */
public final class StartCancelled extends RuntimeException {
    public StartCancelled() {
        super("shut down during the start-up load", null, false, false);
    }
}
