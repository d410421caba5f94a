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
    /**
     * ASKING applies to the running command: ASKING is cleared when the command is routed, but Redis clears it only
     * once the command has run, so the calls of a script it runs (EVAL, FCALL) are routed with it.
     */
    private boolean askingCommand;
    /** READONLY is on. */
    private boolean readOnly;
    /** Another node's link carrying its PUBLISHes here (they are not passed on again). */
    private boolean busLink;
    /** The slot of the running command's keys (of a whole transaction at EXEC), -1 when it has none (Redis's c->slot). */
    private int slot = -1;

    public boolean asking() {
        return asking;
    }

    public void asking(boolean on) {
        asking = on;
    }

    /** Whether ASKING applied to the running command (set by cluster mode's routing of each command). */
    public boolean askingCommand() {
        return askingCommand;
    }

    public void askingCommand(boolean on) {
        askingCommand = on;
    }

    /** READONLY (on) / READWRITE (off): a cluster replica serves this client's reads of its primary's slots. */
    public boolean readOnly() {
        return readOnly;
    }

    public void readOnly(boolean on) {
        readOnly = on;
    }

    /**
     * The slot the running command's keys hash to, -1 when it has none; set by cluster mode's routing of each
     * command, read by a script it runs (keys it touches must hash to that slot, as in Redis).
     */
    public int slot() {
        return slot;
    }

    public void slot(int slot) {
        this.slot = slot;
    }

    public boolean busLink() {
        return busLink;
    }

    public void busLink(boolean on) {
        busLink = on;
    }
}
