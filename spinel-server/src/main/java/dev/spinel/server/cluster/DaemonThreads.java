package dev.spinel.server.cluster;

import java.util.concurrent.ThreadFactory;

/**
 * Threads of the cluster's background work: daemons (a server stops without waiting for them), named for thread dumps
 * and profiles.
 *
 * <p>Stateless.
 */
final class DaemonThreads {
    private DaemonThreads() {
    }

    /** A factory of daemon threads called {@code name}. */
    static ThreadFactory named(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }
}
