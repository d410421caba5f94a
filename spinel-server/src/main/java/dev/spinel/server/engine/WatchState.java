package dev.spinel.server.engine;

import java.util.List;

/**
 * A session's WATCH state: the keys it watches ({@link Watches} keeps the reverse index) and whether one of
 * them changed since.
 *
 * <p>Thread-safety: the list is used under {@link Watches}'s locks; the dirty flag is volatile, set by the
 * thread that wrote a watched key and read by the session's EXEC.
 */
final class WatchState {
    private List<Watches.Watched> watched;
    /** A watched key changed: the next EXEC fails. Set by whichever thread wrote the key. */
    private volatile boolean watchDirty;

    List<Watches.Watched> watched() {
        if (watched == null) {
            watched = Watches.newList();
        }
        return watched;
    }

    boolean watching() {
        return watched != null && !watched.isEmpty();
    }

    boolean dirty() {
        return watchDirty;
    }

    void dirty(boolean on) {
        this.watchDirty = on;
    }
}
