package dev.spinel.server.engine.ports;

/**
 * What the engine must know of scripting before it runs a command: whether a script runs, a way to wait
 * for its end or for it to pass {@code busy-reply-threshold} (Redis's BUSY check), and whether it is a
 * function (for the error's wording). Scripting implements it; the engine holds only this view, so the engine does not
 * depend on the scripting package (which runs its commands through the engine).
 *
 * <p>Thread-safety: implementations are read from every event loop while a script runs on another.
 */
public interface BusyScript {
    /** An engine without scripting: never busy. */
    BusyScript NONE = new BusyScript() {
        @Override
        public boolean running() {
            return false;
        }

        @Override
        public void awaitEndOrBusy(long thresholdMillis) {
        }

        @Override
        public boolean busy(long thresholdMillis) {
            return false;
        }

        @Override
        public boolean functionRunning() {
            return false;
        }
    };

    /** True while a script runs or is about to (waiting for its stripes): one volatile read. */
    boolean running();

    /**
     * Waits until no script runs or the running one has been running for more than {@code thresholdMillis}
     * (0: until it ends), so that a loop answers BUSY once the threshold passes instead of waiting on the
     * script's stripes.
     */
    void awaitEndOrBusy(long thresholdMillis);

    /** True when a script has been running for more than {@code thresholdMillis} (0: never busy). */
    boolean busy(long thresholdMillis);

    /** True when the script running now is a function (FCALL), not an EVAL script. */
    boolean functionRunning();
}
