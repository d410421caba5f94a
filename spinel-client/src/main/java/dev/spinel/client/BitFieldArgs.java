package dev.spinel.client;

import java.util.Arrays;

/**
 * The subcommands of {@code BITFIELD} (and {@code BITFIELD_RO}, GETs only), sent in the order given.
 * A type is {@code iN} (signed, 1 to 64 bits) or {@code uN} (unsigned, 1 to 63 bits), e.g. from
 * {@link #signed} and {@link #unsigned}; an offset is a bit offset or, as a string {@code "#N"}, the
 * N-th field of that width. Immutable: each method returns a new instance. Invalid types, offsets and
 * values are sent as given, and the server answers them with its own error.
 */
public final class BitFieldArgs {
    /** What SET and INCRBY do past a field's range: wrap around, saturate, or refuse (null reply). */
    public enum Overflow {
        WRAP, SAT, FAIL
    }

    private final Object[] words;

    private BitFieldArgs(Object[] words) {
        this.words = words;
    }

    public static BitFieldArgs create() {
        return new BitFieldArgs(new Object[0]);
    }

    /** The type {@code iN}. */
    public static String signed(int bits) {
        return "i" + bits;
    }

    /** The type {@code uN}. */
    public static String unsigned(int bits) {
        return "u" + bits;
    }

    private BitFieldArgs with(Object... more) {
        Object[] w = Arrays.copyOf(words, words.length + more.length);
        System.arraycopy(more, 0, w, words.length, more.length);
        return new BitFieldArgs(w);
    }

    /** {@code GET type offset}: the field's value. */
    public BitFieldArgs get(String type, long offset) {
        return with("GET", type, offset);
    }

    /** {@code GET type offset}, the offset as written ({@code "#2"}: the third field of that width). */
    public BitFieldArgs get(String type, String offset) {
        return with("GET", type, offset);
    }

    /** {@code SET type offset value}: replies the field's previous value. */
    public BitFieldArgs set(String type, long offset, long value) {
        return with("SET", type, offset, value);
    }

    public BitFieldArgs set(String type, String offset, long value) {
        return with("SET", type, offset, value);
    }

    /** {@code INCRBY type offset increment}: replies the field's new value. */
    public BitFieldArgs incrby(String type, long offset, long increment) {
        return with("INCRBY", type, offset, increment);
    }

    public BitFieldArgs incrby(String type, String offset, long increment) {
        return with("INCRBY", type, offset, increment);
    }

    /** {@code OVERFLOW mode}, for the SETs and INCRBYs that follow it. */
    public BitFieldArgs overflow(Overflow mode) {
        return with("OVERFLOW", mode.name());
    }

    /** The subcommand words, as command arguments. */
    public Object[] encode() {
        return words.clone();
    }
}
