package dev.spinel.server.commands.stream;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.ClientText;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.commands.key.SetKeys;
import dev.spinel.server.engine.BlockedOperation;
import dev.spinel.server.engine.Blocking;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Notifications;
import dev.spinel.server.engine.ServeContext;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;
import dev.spinel.store.Entry;
import dev.spinel.store.KeyHash;
import dev.spinel.store.Segment;
import dev.spinel.store.types.stream.StreamConsumer;
import dev.spinel.store.types.stream.StreamGroup;
import dev.spinel.store.types.stream.StreamId;
import dev.spinel.store.types.stream.StreamValue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * XREAD and XREADGROUP (Redis 7.0's xreadCommand): with the stripes of all the streams held, serve
 * what is there; otherwise, with BLOCK, wait through {@link Blocking} (an
 * XADD signals the key) before releasing them. A group read logs XCLAIM / XGROUP SETID instead of
 * itself, as Redis propagates it.
 *
 * <p>Stateless; a blocked client's state is its {@link XReadWaiter}.
 */
public final class StreamReadCommands {
    /** Redis's XREAD_BLOCKED_DEFAULT_COUNT: a blocked read served later returns at most this many per stream. */
    private static final long BLOCKED_DEFAULT_COUNT = 1000;
    private static final RedisError NOGROUP_GONE =
            new RedisError("NOGROUP the consumer group this client was blocked on no longer exists");

    private StreamReadCommands() {
    }

    static void register(CommandTable t) {
        t.register("xread", (s, a) -> xread(s, a, false));
        t.register("xreadgroup", (s, a) -> xread(s, a, true));
    }

    // XREAD [COUNT count] [BLOCK ms] STREAMS key [key ...] id [id ...]
    // XREADGROUP GROUP group consumer [COUNT count] [BLOCK ms] [NOACK] STREAMS key [key ...] id [id ...]
    static void xread(Session s, Args a, boolean group) {
        long timeout = -1;
        long count = 0;
        int streamsArg = 0;
        int n = 0;
        boolean noack = false;
        byte[] groupName = null;
        byte[] consumerName = null;
        for (int i = 1; i < a.count(); i++) {
            int more = a.count() - i - 1;
            if (a.is(i, "BLOCK") && more > 0) {
                if (s.script()) {
                    throw new RedisError("ERR " + a.string(0) + " command is not allowed with BLOCK option from scripts");
                }
                i++;
                timeout = blockTimeout(a, i);
            } else if (a.is(i, "COUNT") && more > 0) {
                i++;
                count = Math.max(0, StreamCommands.parseLong(a, i));
            } else if (a.is(i, "STREAMS") && more > 0) {
                streamsArg = i + 1;
                n = a.count() - streamsArg;
                if (n % 2 != 0) {
                    // Redis 7.0 names XREAD here for XREADGROUP too
                    throw new RedisError("ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.");
                }
                n /= 2;
                break;
            } else if (a.is(i, "GROUP") && more >= 2) {
                if (!group) {
                    throw new RedisError("ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.");
                }
                groupName = a.copy(i + 1);
                consumerName = a.copy(i + 2);
                i += 2;
            } else if (a.is(i, "NOACK")) {
                if (!group) {
                    throw new RedisError("ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.");
                }
                noack = true;
            } else {
                throw Errors.SYNTAX;
            }
        }
        if (streamsArg == 0) {
            throw Errors.SYNTAX;
        }
        if (group && groupName == null) {
            throw new RedisError("ERR Missing GROUP option for XREADGROUP");
        }
        try {
            SetKeys.lockKeys(s, a, streamsArg, streamsArg + n, -1);
            long[] ids = new long[2 * n];
            StreamGroup[] groups = group ? new StreamGroup[n] : null;
            for (int k = 0; k < n; k++) {
                int keyArg = streamsArg + k;
                int idArg = keyArg + n;
                Entry e = SetKeys.read(s, a, keyArg);
                StreamValue st = e == null ? null : Streams.stream(e);
                if (group) {
                    StreamGroup g = st == null ? null : st.groupCount() == 0 ? null : st.groups().get(groupName);
                    if (g == null) {
                        throw new RedisError("NOGROUP No such key '" + a.cString(keyArg) + "' or consumer group '"
                                + ClientText.cString(groupName, 0, groupName.length) + "' in XREADGROUP with GROUP option");
                    }
                    groups[k] = g;
                }
                if (a.length(idArg) == 1 && a.byteAt(idArg, 0) == '$') {
                    if (group) {
                        throw new RedisError("ERR The $ ID is meaningless in the context of XREADGROUP: you want to "
                                + "read the history of this consumer by specifying a proper ID, or use the > ID to get "
                                + "new messages. The $ ID would just return an empty result set.");
                    }
                    ids[2 * k] = st == null ? 0 : st.lastMs();
                    ids[2 * k + 1] = st == null ? 0 : st.lastSeq();
                    continue;
                }
                if (a.length(idArg) == 1 && a.byteAt(idArg, 0) == '>') {
                    if (!group) {
                        throw new RedisError("ERR The > ID can be specified only when calling XREADGROUP using the "
                                + "GROUP <group> <consumer> option.");
                    }
                    ids[2 * k] = -1L;
                    ids[2 * k + 1] = -1L;
                    continue;
                }
                Streams.Id id = Streams.parseId(a, idArg, 0, true, false);
                ids[2 * k] = id.ms();
                ids[2 * k + 1] = id.seq();
            }
            if (serveNow(s, a, streamsArg, n, ids, groups, groupName, consumerName, count, noack)) {
                return;
            }
            if (timeout != -1) {
                if (s.denyBlocking()) {
                    s.out().nullArray();
                    return;
                }
                byte[][] keys = new byte[n][];
                for (int k = 0; k < n; k++) {
                    keys[k] = a.copy(streamsArg + k);
                }
                s.engine().blocking().block(s, s.db(), keys, timeout,
                        new XReadWaiter(keys, ids, groupName, consumerName, count == 0 ? BLOCKED_DEFAULT_COUNT : count, noack));
                return;
            }
            s.out().nullArray();
        } finally {
            s.locks().unlock();
        }
    }

    /** Redis's getTimeoutFromObjectOrReply in milliseconds. */
    private static long blockTimeout(Args a, int i) {
        long t;
        try {
            t = a.parseLong(i);
        } catch (NumberFormatException e) {
            throw new RedisError("ERR timeout is not an integer or out of range");
        }
        if (t < 0) {
            throw new RedisError("ERR timeout is negative");
        }
        return t;
    }

    /**
     * Replies with every stream that has something now; false (nothing written) when none has. Streams
     * are decided and served one after the other, as Redis does: a key named twice in one XREADGROUP
     * sees the group as the first read left it.
     */
    private static boolean serveNow(Session s, Args a, int streamsArg, int n, long[] ids, StreamGroup[] groups,
            byte[] groupName, byte[] consumerName, long count, boolean noack) {
        boolean resp3 = s.protocol() == 3;
        ReplyBuffer body = null; // the length of the reply is known at the end
        int served = 0;
        for (int k = 0; k < n; k++) {
            Entry e = SetKeys.read(s, a, streamsArg + k);
            if (e == null) {
                continue;
            }
            StreamValue st = (StreamValue) e.value();
            boolean serve = false;
            boolean history = false;
            long[] start = {ids[2 * k], ids[2 * k + 1]};
            if (groups != null) {
                if (start[0] != -1L || start[1] != -1L) {
                    serve = history = true;
                } else if (st.size() > 0) {
                    var c = st.cursor(0, 0, -1L, -1L, true);
                    c.next();
                    if (StreamId.compare(c.ms(), c.seq(), groups[k].lastMs, groups[k].lastSeq) > 0) {
                        serve = true;
                        start[0] = groups[k].lastMs;
                        start[1] = groups[k].lastSeq;
                    }
                }
            } else if (st.size() > 0) {
                var c = st.cursor(0, 0, -1L, -1L, true);
                c.next();
                serve = StreamId.compare(c.ms(), c.seq(), start[0], start[1]) > 0;
            }
            if (!serve) {
                continue;
            }
            if (body == null) {
                body = new ReplyBuffer();
                body.resp3(resp3);
            }
            served++;
            Streams.incr(start);
            if (!resp3) {
                body.array(2);
            }
            byte[] key = a.copy(streamsArg + k);
            body.bulk(key);
            if (groups == null) {
                Streams.range(body, st, start[0], start[1], -1L, -1L, count, false);
                continue;
            }
            long before = st.memoryUsage();
            boolean[] created = new boolean[1];
            StreamConsumer c = StreamGroups.consumer(groups[k], consumerName, s.now(), created);
            if (created[0]) {
                s.notify(Notifications.STREAM, "xgroup-createconsumer", key);
                if (noack) { // no XCLAIM will create it on replay
                    s.propagateAs(StreamGroups.XGROUP, StreamGroups.bytes("CREATECONSUMER"), key, groupName, consumerName);
                }
            }
            c.seenTime = s.now();
            if (history) {
                StreamGroups.deliverHistory(body, st, c, start[0], start[1], count, s.now());
            } else {
                StreamGroups.deliverNew(body, st, key, groupName, groups[k], c, start[0], start[1], count, noack,
                        s.now(), s::propagateAs);
            }
            Segment seg = s.db().segment(KeyHash.hash(key));
            seg.adjustMemory(st.memoryUsage() - before);
            s.dirtyQuietly(1);
        }
        if (served == 0) {
            return false;
        }
        ReplyBuffer out = s.out();
        if (resp3) {
            out.map(served); // {key: entries}
        } else {
            out.array(served); // [[key, entries], ...]
        }
        out.raw(body.array(), 0, body.size());
        return true;
    }

    private static final String STREAM_GONE = "UNBLOCKED the stream key no longer exists";

    /** A client blocked in XREAD / XREADGROUP; {@code ids} holds, per key, the ID entries must exceed. */
    private record XReadWaiter(byte[][] keys, long[] ids, byte[] groupName, byte[] consumerName, long count,
            boolean noack) implements BlockedOperation {
        @Override
        public boolean tryServe(ServeContext ctx) {
            byte[] key = ctx.key();
            int k = 0;
            while (k < keys.length && !Arrays.equals(keys[k], key)) {
                k++;
            }
            if (k == keys.length) {
                return false;
            }
            ctx.locks().add(ctx.db(), key, 0, key.length).lock();
            int h = KeyHash.hash(key);
            Segment seg = ctx.db().segment(h);
            Entry e = seg.get(key, 0, key.length, h, ctx.now());
            if (e == null || !(e.value() instanceof StreamValue st)) {
                // The stream was deleted or replaced: its group went with it, so a group reader would wait
                // forever; Redis answers it at once (unblockDeletedStreamReadgroupClients). XREAD keeps waiting.
                if (groupName == null || !ctx.claim()) {
                    return false;
                }
                ctx.out().error(STREAM_GONE);
                return true;
            }
            long gtMs = ids[2 * k];
            long gtSeq = ids[2 * k + 1];
            StreamGroup g = null;
            if (groupName != null) {
                g = st.groupCount() == 0 ? null : st.groups().get(groupName);
                if (g == null) {
                    if (!ctx.claim()) {
                        return false;
                    }
                    ctx.out().error(NOGROUP_GONE.getMessage());
                    return true;
                }
                gtMs = g.lastMs;
                gtSeq = g.lastSeq;
            }
            if (StreamId.compare(st.lastMs(), st.lastSeq(), gtMs, gtSeq) <= 0 || !ctx.claim()) {
                return false;
            }
            long[] start = {gtMs, gtSeq};
            Streams.incr(start);
            ReplyBuffer out = ctx.out();
            if (ctx.session().protocol() == 3) {
                out.map(1);
            } else {
                out.array(1);
                out.array(2);
            }
            out.bulk(key);
            if (g == null) {
                Streams.range(out, st, start[0], start[1], -1L, -1L, count, false);
                return true;
            }
            var eng = ctx.session().engine();
            long before = st.memoryUsage();
            boolean[] created = new boolean[1];
            StreamConsumer c = StreamGroups.consumer(g, consumerName, ctx.now(), created);
            List<byte[][]> logged = new ArrayList<>();
            if (created[0]) {
                eng.notifications().notify(Notifications.STREAM, "xgroup-createconsumer", key, ctx.db().index());
                if (noack) {
                    logged.add(new byte[][] {StreamGroups.XGROUP, StreamGroups.bytes("CREATECONSUMER"), key, groupName,
                            consumerName});
                }
            }
            c.seenTime = ctx.now();
            StreamGroups.deliverNew(out, st, key, groupName, g, c, start[0], start[1], count, noack, ctx.now(), logged::add);
            ctx.propagateAll(logged);
            seg.adjustMemory(st.memoryUsage() - before);
            eng.stats().dirty.add(1);
            return true;
        }

        @Override
        public void timeoutReply(ReplyBuffer out) {
            out.nullArray();
        }
    }
}
