package dev.spinel.store.types;

/** Receives one element as a slice of a buffer that must not be kept or modified. */
@FunctionalInterface
public interface ElementVisitor {
    /** Returns {@code false} to stop the iteration. */
    boolean visit(byte[] buf, int off, int len);
}
