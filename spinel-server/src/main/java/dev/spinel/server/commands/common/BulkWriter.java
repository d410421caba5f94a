package dev.spinel.server.commands.common;

import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.store.types.ElementVisitor;
import dev.spinel.store.types.PairVisitor;

/**
 * Writes visited elements (LRANGE) or pairs (HGETALL, HKEYS, HVALS) as bulk replies. One reusable
 * instance per event-loop thread, so iterating a collection allocates no visitor per command.
 *
 * <p>Not thread-safe: obtained with {@link #of} and used by the calling thread within one command.
 */
public final class BulkWriter implements ElementVisitor, PairVisitor {
    private static final ThreadLocal<BulkWriter> LOCAL = ThreadLocal.withInitial(BulkWriter::new);

    private ReplyBuffer out;
    private boolean keys;
    private boolean values;

    public static BulkWriter of(ReplyBuffer out, boolean keys, boolean values) {
        BulkWriter w = LOCAL.get();
        w.out = out;
        w.keys = keys;
        w.values = values;
        return w;
    }

    @Override
    public boolean visit(byte[] buf, int off, int len) {
        out.bulk(buf, off, len);
        return true;
    }

    @Override
    public void visit(byte[] k, int koff, int klen, byte[] v, int voff, int vlen) {
        if (keys) {
            out.bulk(k, koff, klen);
        }
        if (values) {
            out.bulk(v, voff, vlen);
        }
    }
}
