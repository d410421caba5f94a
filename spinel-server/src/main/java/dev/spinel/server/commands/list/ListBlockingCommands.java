package dev.spinel.server.commands.list;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.commands.common.NumberArgs;
import dev.spinel.server.commands.key.Keys;
import dev.spinel.server.engine.BlockedOperation;
import dev.spinel.server.engine.Blocking;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.engine.Notifications;
import dev.spinel.server.engine.ServeContext;
import dev.spinel.server.engine.Session;
import dev.spinel.store.Database;
import dev.spinel.store.Entry;
import dev.spinel.store.KeyHash;
import dev.spinel.store.Segment;
import dev.spinel.store.StripeLocks;
import dev.spinel.store.types.ListValue;

import java.nio.charset.StandardCharsets;

/**
 * Blocking list commands: BLPOP, BRPOP, BLMOVE, BRPOPLPUSH, BLMPOP. Each first runs like its
 * non-blocking form with the stripes of all its keys held; if nothing can be served it blocks
 * through {@link Blocking} before releasing them, so no push can be missed.
 */
public final class ListBlockingCommands {
    private static final byte[] LPOP = "LPOP".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] RPOP = "RPOP".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] LMOVE = "LMOVE".getBytes(StandardCharsets.US_ASCII);
    /** Redis's shared.left and shared.right: how a served BLMOVE names its sides in the LMOVE it propagates. */
    private static final byte[] LEFT = "left".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] RIGHT = "right".getBytes(StandardCharsets.US_ASCII);

    private ListBlockingCommands() {
    }

    static void register(CommandTable t) {
        t.register("blpop", (s, a) -> bpop(s, a, true));
        t.register("brpop", (s, a) -> bpop(s, a, false));
        t.register("blmove", (s, a) -> {
            boolean from = Lists.side(a, 3);
            boolean to = Lists.side(a, 4);
            blmove(s, a, from, to, NumberArgs.timeoutMillis(a, 5), false);
        });
        t.register("brpoplpush", (s, a) -> blmove(s, a, false, true, NumberArgs.timeoutMillis(a, 3), true));
        t.register("blmpop", ListBlockingCommands::blmpop);
    }

    // BLPOP key [key ...] timeout / BRPOP key [key ...] timeout
    static void bpop(Session s, Args a, boolean head) {
        long timeout = NumberArgs.timeoutMillis(a, a.count() - 1);
        Database db = s.db();
        StripeLocks locks = s.locks();
        int nkeys = a.count() - 2;
        for (int i = 1; i <= nkeys; i++) {
            locks.add(db, a.buffer(), a.offset(i), a.length(i));
        }
        locks.lock();
        try {
            for (int i = 1; i <= nkeys; i++) {
                int h = Keys.hash(a, i);
                Segment seg = db.segment(h);
                Entry e = Keys.write(s, seg, a, i, h);
                if (e == null) {
                    continue;
                }
                ListValue l = Lists.list(e);
                if (l.length() > 0) {
                    long before = l.memoryUsage();
                    s.out().array(2);
                    s.out().bulk(a.buffer(), a.offset(i), a.length(i));
                    s.out().bulk(l.pop(head));
                    seg.adjustMemory(l.memoryUsage() - before);
                    s.onlyKeyChanged(i, 1, nkeys + 1);
                    s.dirty(1);
                    s.notify(Notifications.LIST, head ? "lpop" : "rpop", a, i);
                    s.propagateAs(head ? ListMoveCommands.LPOP : ListMoveCommands.RPOP, a.copy(i)); // as Redis 7.0
                    Lists.deleteIfEmpty(seg, e, l);
                    if (l.length() == 0) {
                        s.notify(Notifications.GENERIC, "del", a, i);
                    }
                    return;
                }
            }
            byte[][] keys = new byte[nkeys][];
            for (int i = 0; i < nkeys; i++) {
                keys[i] = a.copy(i + 1);
            }
            s.engine().blocking().block(s, db, keys, timeout, new PopWaiter(head, 0));
        } finally {
            locks.unlock();
        }
    }

    // BLMOVE source destination LEFT|RIGHT LEFT|RIGHT timeout / BRPOPLPUSH source destination timeout
    /** {@code rpoplpush}: BRPOPLPUSH, which Redis 7.0 propagates as RPOPLPUSH (BLMOVE as LMOVE). */
    static void blmove(Session s, Args a, boolean fromHead, boolean toHead, long timeout, boolean rpoplpush) {
        Database db = s.db();
        byte[] src = a.copy(1);
        byte[] dst = a.copy(2);
        StripeLocks locks = s.locks().add(db, src, 0, src.length).add(db, dst, 0, dst.length);
        locks.lock();
        try {
            if (ListMoveCommands.move(s.engine(), s.out(), db, src, dst, fromHead, toHead, s.now(), false)) {
                s.dirty(1);
                if (rpoplpush) {
                    s.propagateAs(RPOPLPUSH, src, dst);
                } else {
                    s.propagateAs(ListMoveCommands.LMOVE, src, dst, a.copy(3), a.copy(4)); // the client's words, as Redis 7.0
                }
            } else {
                s.engine().blocking().block(s, db, new byte[][] {src}, timeout, new MoveWaiter(dst, fromHead, toHead, rpoplpush));
            }
        } finally {
            locks.unlock();
        }
    }

    // BLMPOP timeout numkeys key [key ...] LEFT|RIGHT [COUNT count]
    static void blmpop(Session s, Args a) {
        ListMoveCommands.MpopArgs m = ListMoveCommands.MpopArgs.parse(a, 2);
        long timeout = NumberArgs.timeoutMillis(a, 1); // Redis parses the timeout after numkeys, the side and COUNT
        Database db = s.db();
        StripeLocks locks = s.locks();
        for (int i = 0; i < m.numKeys(); i++) {
            int k = m.firstKey() + i;
            locks.add(db, a.buffer(), a.offset(k), a.length(k));
        }
        locks.lock();
        try {
            byte[][] keys = new byte[m.numKeys()][];
            for (int i = 0; i < m.numKeys(); i++) {
                keys[i] = a.copy(m.firstKey() + i);
                int n = ListMoveCommands.popFirst(s.engine(), s.out(), db, keys[i], m.head(), m.count(), s.now(), false, null);
                if (n > 0) {
                    s.onlyKeyChanged(m.firstKey() + i, m.firstKey(), m.firstKey() + m.numKeys());
                    s.dirty(1);
                    s.propagateAs(m.head() ? ListMoveCommands.LPOP : ListMoveCommands.RPOP, keys[i], ListMoveCommands.count(n));
                    return;
                }
            }
            s.engine().blocking().block(s, db, keys, timeout, new PopWaiter(m.head(), m.count()));
        } finally {
            locks.unlock();
        }
    }

    /** BLPOP/BRPOP ({@code count == 0}: reply {@code [key, element]}) and BLMPOP ({@code [key, [elements]]}). */
    private record PopWaiter(boolean head, long count) implements BlockedOperation {
        @Override
        public boolean tryServe(ServeContext ctx) {
            byte[] key = ctx.key();
            ctx.locks().add(ctx.db(), key, 0, key.length).lock();
            Engine eng = ctx.session().engine();
            if (count > 0) {
                int n = ListMoveCommands.popFirst(eng, ctx.out(), ctx.db(), key, head, count, ctx.now(), true, ctx);
                if (n == 0) {
                    return false;
                }
                ctx.propagate(head ? LPOP : RPOP, key, ListMoveCommands.count(n)); // the count popped, as Redis 7.0
                return true;
            }
            int h = KeyHash.hash(key);
            Segment seg = ctx.db().segment(h);
            Entry e = seg.get(key, 0, key.length, h, ctx.now());
            if (e == null || !(e.value() instanceof ListValue l) || l.length() == 0 || !ctx.claim()) {
                return false;
            }
            long before = l.memoryUsage();
            ctx.out().array(2);
            ctx.out().bulk(key);
            ctx.out().bulk(l.pop(head));
            seg.adjustMemory(l.memoryUsage() - before);
            eng.stats().dirty.increment();
            Lists.deleteIfEmpty(seg, e, l);
            eng.notifications().notify(Notifications.LIST, head ? "lpop" : "rpop", key, ctx.db().index());
            if (l.length() == 0) {
                eng.notifications().notify(Notifications.GENERIC, "del", key, ctx.db().index());
            }
            ctx.propagate(head ? LPOP : RPOP, key);
            return true;
        }

        @Override
        public void timeoutReply(ReplyBuffer out) {
            out.nullArray();
        }
    }

    /** BLMOVE/BRPOPLPUSH: waits on the source only, as Redis. */
    private static final byte[] RPOPLPUSH = "RPOPLPUSH".getBytes(StandardCharsets.US_ASCII);

    private record MoveWaiter(byte[] dst, boolean fromHead, boolean toHead, boolean rpoplpush) implements BlockedOperation {
        @Override
        public boolean tryServe(ServeContext ctx) {
            byte[] src = ctx.key();
            ctx.locks().add(ctx.db(), src, 0, src.length).add(ctx.db(), dst, 0, dst.length).lock();
            if (!ListMoveCommands.move(ctx.session().engine(), ctx.out(), ctx.db(), src, dst, fromHead, toHead,
                    ctx.now(), true, ctx)) {
                return false;
            }
            if (ctx.out().size() > 0 && ctx.out().array()[0] != '-') { // a WRONGTYPE destination changed nothing
                if (rpoplpush) {
                    ctx.propagate(RPOPLPUSH, src, dst);
                } else {
                    ctx.propagate(LMOVE, src, dst, fromHead ? LEFT : RIGHT, toHead ? LEFT : RIGHT);
                }
            }
            return true;
        }

        @Override
        public void timeoutReply(ReplyBuffer out) {
            out.nullArray(); // Redis 7.0 answers a timed-out BLMOVE with a null array, like BLPOP
        }

        @Override
        public void nonBlockingReply(ReplyBuffer out) {
            out.nullBulk(); // but a BLMOVE that may not block (in MULTI) answers a null bulk
        }
    }
}
