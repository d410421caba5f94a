package dev.spinel.server.engine.replica;

/**
 * Whether a replica is loading its master's dataset, as Redis's {@code server.loading} and
 * {@code server.async_loading}: a blocking load (the old dataset is not served: commands without Redis's
 * {@code loading} flag get {@code -LOADING}), or an async one ({@code repl-diskless-load swapdb} from the same
 * replication history: the old dataset is served meanwhile, only commands flagged {@code no_async_loading} are
 * refused). INFO persistence's {@code loading} / {@code async_loading}; CONFIG SET of {@code appendonly},
 * {@code repl-diskless-load} and {@code dir} is refused during either, as Redis's DENY_LOADING_CONFIG.
 *
 * <p>Thread-safety: one volatile field, set by the replica's link thread, read by dispatch (only on a replica)
 * and INFO on any thread.
 */
public final class DatasetLoading {
    public static final String LOADING = "LOADING Redis is loading the dataset in memory";
    private static final int NONE = 0;
    private static final int BLOCKING = 1;
    private static final int ASYNC = 2;

    private volatile int state = NONE;

    /** A load starts: {@code async} serves the old dataset meanwhile. */
    public void begin(boolean async) {
        state = async ? ASYNC : BLOCKING;
    }

    /** The load ended (loaded, or failed). */
    public void end() {
        state = NONE;
    }

    /** INFO's {@code loading}: a load that does not serve the old dataset. */
    public boolean blocking() {
        return state == BLOCKING;
    }

    /** INFO's {@code async_loading}. */
    public boolean async() {
        return state == ASYNC;
    }

    /** Either kind of load (Redis's {@code server.loading}, which is also set during an async load). */
    public boolean any() {
        return state != NONE;
    }

    /** INFO persistence's first fields, {@code loading} and {@code async_loading}; returns {@code sb}. */
    public StringBuilder appendInfo(StringBuilder sb) {
        int s = state;
        return sb.append("loading:").append(s == BLOCKING ? 1 : 0).append("\r\nasync_loading:").append(s == ASYNC ? 1 : 0)
                .append("\r\n");
    }
}
