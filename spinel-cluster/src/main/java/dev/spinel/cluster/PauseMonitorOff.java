package dev.spinel.cluster;

import org.apache.ratis.server.RaftServer;
import org.apache.ratis.util.JvmPauseMonitor;

import java.lang.reflect.Field;

/**
 * Stops the JVM pause monitor Ratis 3.2 starts with every Raft server, which no setting turns off.
 *
 * <p>Its thread wakes every 300 ms and reads every garbage collector's bean (a stream, maps, object names) before and
 * after its sleep: about 7 % of an idle node's CPU, on a 2-core machine where the cluster's background threads are
 * much of what cluster mode costs the servers (docs/benchmarks.md, "background threads and the router's clock read").
 * What it does is not wanted here either: after a pause longer than a minute (a SIGSTOP, a suspended VM) it closes
 * the Raft server for good, so a node resumed would stay outside its cluster until restarted; after a shorter one it
 * makes a leader step down, which the others' higher term does anyway on its next heartbeat, and this node's fencing
 * does not wait for (it counts the pause as time out of contact, {@link RaftContact}).
 *
 * <p>Ratis keeps the monitor in a private field of its server class: read by reflection (the classpath, no module
 * boundary). If a later Ratis renames it, the monitor keeps running, a warning says so, and {@code PauseMonitorOffTest}
 * fails.
 *
 * <p>Thread-safety: stateless.
 */
final class PauseMonitorOff {
    private PauseMonitorOff() {
    }

    /** Stops {@code server}'s pause monitor (started by its start); false, with a warning, if it could not. */
    static boolean stop(RaftServer server) {
        try {
            Field f = server.getClass().getDeclaredField("pauseMonitor");
            f.setAccessible(true);
            ((JvmPauseMonitor) f.get(server)).stop();
            return true;
        } catch (ReflectiveOperationException | RuntimeException e) {
            System.getLogger(PauseMonitorOff.class.getName()).log(System.Logger.Level.WARNING,
                    "Ratis's JVM pause monitor keeps running: " + e);
            return false;
        }
    }
}
