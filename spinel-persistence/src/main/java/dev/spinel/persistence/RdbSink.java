package dev.spinel.persistence;

/**
 * Receives what {@link RdbReader} decodes, in file order. Implementations decide what to keep (e.g.
 * a loader skips keys already expired, as Redis does when it loads a file as a master).
 */
public interface RdbSink {
    /** An AUX field (redis-ver, ctime, ...); values are passed as the bytes stored. */
    default void aux(byte[] key, byte[] value) {
    }

    /**
     * One function library ({@code RDB_OPCODE_FUNCTION2}): its whole source code, {@code #!lua name=...}
     * shebang included, as FUNCTION LOAD received it. A sink that cannot keep functions refuses the file
     * (the default), so that loading never drops a user's code silently.
     */
    default void function(byte[] code) {
        throw new RdbException("The RDB file contains functions, which this loader does not support");
    }

    /** Size hints of the database being loaded (RESIZEDB). */
    default void resize(int db, long size, long expires) {
    }

    /**
     * One key of database {@code db}. {@code expireAt} is Unix ms or -1; {@code idleSeconds} and
     * {@code freq} are -1 when the file carries none.
     */
    void entry(int db, byte[] key, Object value, long expireAt, long idleSeconds, int freq);

    /** A key whose collection is empty, which is skipped (Redis's "rdbLoadObject skipping empty key"). */
    default void emptyKey(int db, byte[] key) {
    }
}
