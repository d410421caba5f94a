package dev.spinel.client;

/**
 * EXEC did not run the transaction because a WATCHed key changed (EXEC answered null); every command
 * queued in it fails with this. Immutable.
 */
public final class TransactionAbortedException extends SpinelException {
    public TransactionAbortedException(String message) {
        super(message);
    }
}
