package dev.spinel.store.types;

/** Receives one field/value pair as slices of buffers that must not be kept or modified. */
@FunctionalInterface
public interface PairVisitor {
    void visit(byte[] k, int koff, int klen, byte[] v, int voff, int vlen);
}
