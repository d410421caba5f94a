package dev.spinel.server.scripting;

/** A refused FUNCTION LOAD (or RESTORE) with Redis's text, without the "ERR " the reply adds. */
public final class FunctionError extends RuntimeException {
    public FunctionError(String message) {
        super(message, null, false, false);
    }
}
