package dev.spinel.server.engine.debug;

/**
 * DEBUG's switches of the engine (Redis's own suites use them): active expiry, the cron's pause, and whether
 * scripts may call commands flagged noscript.
 *
 * <p>Thread-safety: volatile fields, set by DEBUG on any loop and read by the cron and the script thread.
 */
public final class DebugSwitches {
    /** DEBUG SET-ACTIVE-EXPIRE: whether the cron deletes expired keys it finds (lazy expiry always works). */
    private volatile boolean activeExpire = true;
    /** DEBUG PAUSE-CRON: whether the cron skips its ticks (no active expiry, no idle-client timeouts, no stats samples). */
    private volatile boolean cronPaused;

    public boolean activeExpire() {
        return activeExpire;
    }

    /** DEBUG SET-DISABLE-DENY-SCRIPTS: whether scripts may call commands flagged noscript (Redis's own suites use it). */
    private volatile boolean scriptsMayCallNoscript;

    public boolean scriptsMayCallNoscript() {
        return scriptsMayCallNoscript;
    }

    public void scriptsMayCallNoscript(boolean allowed) {
        scriptsMayCallNoscript = allowed;
    }

    public void activeExpire(boolean enabled) {
        activeExpire = enabled;
    }

    public boolean cronPaused() {
        return cronPaused;
    }

    public void cronPaused(boolean paused) {
        cronPaused = paused;
    }
}
