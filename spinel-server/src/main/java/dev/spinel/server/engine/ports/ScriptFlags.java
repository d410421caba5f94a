package dev.spinel.server.engine.ports;

import dev.spinel.protocol.Args;

/**
 * The flags a script or function declares, as the dispatcher needs them before it runs (Redis 7.0's
 * {@code evalGetCommandFlags} / {@code fcallGetCommandFlags}): CLIENT PAUSE WRITE holds a script that may
 * write, and an EXEC whose queue holds one.
 *
 * <p>Thread-safety: implementations are called from any event loop, without the stripes.
 */
public interface ScriptFlags {
    /** The script declares nothing (no shebang, or an unknown script or function): the command's own flags apply. */
    int UNDECLARED = -1;
    /** Declared {@code no-writes}. */
    int NO_WRITES = 1;
    /** Declared {@code allow-oom}. */
    int ALLOW_OOM = 2;
    /** Declared {@code allow-stale}. */
    int ALLOW_STALE = 4;

    /** No scripting (embedded engines): every script is undeclared. */
    ScriptFlags NONE = (kind, args) -> UNDECLARED;

    /** What {@code args} (EVAL's body, EVALSHA's SHA1, FCALL's function name at index 1) declares. */
    int declared(ScriptKind kind, Args args);

    /** Whether the script or function {@code args} names exists (EVAL's body always does). */
    default boolean known(ScriptKind kind, Args args) {
        return true;
    }

    /** How a script command names its script. */
    enum ScriptKind {
        /** EVAL, EVAL_RO: the body. */
        BODY,
        /** EVALSHA, EVALSHA_RO: the SHA1 of a cached script. */
        SHA,
        /** FCALL, FCALL_RO: a function's name. */
        FUNCTION
    }
}
