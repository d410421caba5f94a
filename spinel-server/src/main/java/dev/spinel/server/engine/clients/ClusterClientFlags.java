package dev.spinel.server.engine.clients;

/**
 * A session's cluster-mode flags: ASKING (one command, or the transaction it opens), READONLY, and whether the
 * connection is another node's link carrying its PUBLISHes. All false outside cluster mode.
 *
 * <p>Thread-safety: used only by the thread executing the session's command.
 */
public final class ClusterClientFlags {
    /** ASKING was sent (for the next command, or the transaction it opens). */
    private boolean asking;
    /** READONLY is on. */
    private boolean readOnly;
    /** Another node's link carrying its PUBLISHes here (they are not passed on again). */
    private boolean busLink;

    public boolean asking() {
        return asking;
    }

    public void asking(boolean on) {
        asking = on;
    }

    /** READONLY (on) / READWRITE (off): a cluster replica serves this client's reads of its primary's slots. */
    public boolean readOnly() {
        return readOnly;
    }

    public void readOnly(boolean on) {
        readOnly = on;
    }

    public boolean busLink() {
        return busLink;
    }

    public void busLink(boolean on) {
        busLink = on;
    }
}
