package dev.spinel.server.engine;

import dev.spinel.protocol.Args;

import java.util.ArrayList;
import java.util.List;

/**
 * A session's MULTI state: the queued commands (arguments copied, since the receive buffer moves on)
 * and whether a queueing error doomed the transaction (EXECABORT).
 *
 * <p>Not thread-safe: touched only on the session's event loop.
 */
public final class Transaction {
    record Queued(Command command, byte[][] argv) {
    }

    private final List<Queued> queued = new ArrayList<>();
    private boolean aborted;
    /** Flags queued scripts took from their scripts (Redis's getCommandFlags at queue time): write, denyoom. */
    private boolean scriptWrite;
    private boolean scriptDenyOom;
    /** A queued EVAL, EVALSHA or FCALL whose script declares nothing: their may_replicate flag. */
    private boolean scriptMayReplicate;
    /** A script command is queued: EXEC then runs on the script thread, as a script does. */
    private boolean holdsScript;
    /** Redis's mstate.argv_len_sums: the queued arguments' bytes plus a pointer per argument. */
    private long argvBytes;

    boolean holdsScript() {
        return holdsScript;
    }

    void queue(Command cmd, Args a) {
        byte[][] argv = new byte[a.count()][];
        for (int i = 0; i < argv.length; i++) {
            argv[i] = a.copy(i);
            argvBytes += argv[i].length + 8;
        }
        queued.add(new Queued(cmd, argv));
    }

    /** Records the flags a queued script command takes from its script (see {@link dev.spinel.server.engine.ports.ScriptFlags}). */
    void queuedScript(boolean write, boolean denyOom, boolean mayReplicate) {
        holdsScript = true;
        scriptWrite |= write;
        scriptDenyOom |= denyOom;
        scriptMayReplicate |= mayReplicate;
    }

    /** Number of queued commands (CLIENT LIST multi=). */
    public int size() {
        return queued.size();
    }

    /**
     * CLIENT LIST's multi-mem part of the queue, as Redis's multiStateMemOverhead counts it: the queued
     * arguments' bytes and pointers, and one multiCmd (24 bytes) per queued command.
     */
    public long memory() {
        return argvBytes + 24L * queued.size();
    }

    List<Queued> queued() {
        return queued;
    }

    /** The command of queued entry {@code i} (cluster mode checks EXEC's keys as Redis's getNodeByQuery). */
    public Command command(int i) {
        return queued.get(i).command();
    }

    /** The arguments of queued entry {@code i}. */
    public Args args(int i) {
        return Args.of(queued.get(i).argv());
    }

    void abort() {
        aborted = true;
    }

    boolean aborted() {
        return aborted;
    }

    /** Whether a queued command has this flag (Redis's mstate.cmd_flags: EXEC checks write and denyoom). */
    boolean anyHas(CommandFlag flag) {
        if ((scriptWrite && flag == CommandFlag.WRITE) || (scriptDenyOom && flag == CommandFlag.DENYOOM)) {
            return true;
        }
        for (Queued q : queued) {
            if (q.command().has(flag)) {
                return true;
            }
        }
        return false;
    }

    /** Whether a queued command writes, its script's declared flags included (Redis's mstate.cmd_flags & CMD_WRITE). */
    public boolean queuesWrite() {
        return anyHas(CommandFlag.WRITE);
    }

    /** Whether a queued command lacks this flag (Redis's mstate.cmd_inv_flags: EXEC during a load checks loading). */
    boolean anyLacks(CommandFlag flag) {
        for (Queued q : queued) {
            if (!q.command().has(flag)) {
                return true;
            }
        }
        return false;
    }

    /** Whether a queued command writes (an EXEC that writes waits out CLIENT PAUSE WRITE). */
    boolean writes() {
        if (scriptWrite || scriptMayReplicate) {
            return true;
        }
        for (Queued q : queued) {
            if (q.command().has(CommandFlag.WRITE) || q.command().has(CommandFlag.MAY_REPLICATE)) {
                return true;
            }
        }
        return false;
    }
}
