package dev.spinel.client;

/** The operation of {@code BITOP}: NOT takes exactly one source key. */
public enum BitOperation {
    AND, OR, XOR, NOT
}
