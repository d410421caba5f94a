package dev.spinel.server.commands.zset;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.commands.common.NumberArgs;
import dev.spinel.server.commands.key.SetKeys;
import dev.spinel.server.engine.BlockedOperation;
import dev.spinel.server.engine.Blocking;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.engine.ServeContext;
import dev.spinel.server.engine.Session;
import dev.spinel.store.Database;
import dev.spinel.store.Entry;
import dev.spinel.store.KeyHash;
import dev.spinel.store.Segment;
import dev.spinel.store.types.ZSetValue;

import java.nio.charset.StandardCharsets;

/**
 * Blocking sorted-set pops: BZPOPMIN, BZPOPMAX, BZMPOP (Redis's blockingGenericZpopCommand). Each first
 * runs like ZPOPMIN/ZMPOP with the stripes of all its keys held; if every key is empty it blocks through
 * {@link Blocking} before releasing them, so no ZADD can be missed.
 *
 * <p>Stateless; the per-client wait state is the {@link ZPopWaiter} record held by the blocking framework.
 */
public final class ZSetBlockingCommands {
    private static final byte[] ZPOPMIN = "ZPOPMIN".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ZPOPMAX = "ZPOPMAX".getBytes(StandardCharsets.US_ASCII);

    private ZSetBlockingCommands() {
    }

    static void register(CommandTable t) {
        t.register("bzpopmin", (s, a) -> bzpop(s, a, false));
        t.register("bzpopmax", (s, a) -> bzpop(s, a, true));
        t.register("bzmpop", ZSetBlockingCommands::bzmpop);
    }

    // BZPOPMIN key [key ...] timeout / BZPOPMAX key [key ...] timeout
    static void bzpop(Session s, Args a, boolean max) {
        long timeout = NumberArgs.timeoutMillis(a, a.count() - 1);
        block(s, a, 1, a.count() - 1, max, 1, ZSetPopCommands.Reply.KEY_FLAT, timeout);
    }

    // BZMPOP timeout numkeys key [key ...] MIN | MAX [COUNT count]
    static void bzmpop(Session s, Args a) {
        ZSetPopCommands.MpopArgs m = ZSetPopCommands.MpopArgs.parse(a, 2);
        long timeout = NumberArgs.timeoutMillis(a, 1); // Redis parses the timeout after the other options
        block(s, a, m.firstKey(), m.whereArg(), m.max(), m.count(), ZSetPopCommands.Reply.KEY_PAIRS, timeout);
    }

    /** Pops from the first non-empty key of [from, to), or blocks on all of them (stripes held throughout). */
    private static void block(Session s, Args a, int from, int to, boolean max, long count,
            ZSetPopCommands.Reply shape, long timeout) {
        try {
            SetKeys.lockKeys(s, a, from, to, -1);
            if (ZSetPopCommands.popFirst(s, a, from, to, max, count, shape)) {
                return;
            }
            Database db = s.db();
            byte[][] keys = new byte[to - from][];
            for (int i = from; i < to; i++) {
                keys[i - from] = a.copy(i);
            }
            s.engine().blocking().block(s, db, keys, timeout, new ZPopWaiter(max, count, shape));
        } finally {
            s.locks().unlock();
        }
    }

    /** A client waiting for a sorted set to pop from; a key of another type keeps it waiting, as Redis. */
    private record ZPopWaiter(boolean max, long count, ZSetPopCommands.Reply shape) implements BlockedOperation {
        @Override
        public boolean tryServe(ServeContext ctx) {
            byte[] key = ctx.key();
            ctx.locks().add(ctx.db(), key, 0, key.length).lock();
            int h = KeyHash.hash(key);
            Segment seg = ctx.db().segment(h);
            Entry e = seg.get(key, 0, key.length, h, ctx.now());
            if (e == null || !(e.value() instanceof ZSetValue z) || z.size() == 0 || !ctx.claim()) {
                return false;
            }
            Engine eng = ctx.session().engine();
            long n = ZSetPopCommands.pop(eng, ctx.out(), ctx.db().index(), seg, e, z, max, count, shape);
            eng.stats().dirty.add(n);
            if (shape == ZSetPopCommands.Reply.KEY_FLAT) { // BZPOPMIN/BZPOPMAX: no count, as Redis 7.0's serve
                ctx.propagate(max ? ZPOPMAX : ZPOPMIN, key);
            } else {
                ctx.propagate(max ? ZPOPMAX : ZPOPMIN, key, Long.toString(n).getBytes(StandardCharsets.US_ASCII));
            }
            return true;
        }

        @Override
        public void timeoutReply(ReplyBuffer out) {
            out.nullArray();
        }
    }
}
