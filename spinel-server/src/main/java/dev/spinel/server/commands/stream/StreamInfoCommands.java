package dev.spinel.server.commands.stream;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.commands.common.Help;
import dev.spinel.server.commands.key.Keys;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;
import dev.spinel.store.Segment;
import dev.spinel.store.types.stream.StreamConsumer;
import dev.spinel.store.types.stream.StreamCursor;
import dev.spinel.store.types.stream.StreamGroup;
import dev.spinel.store.types.stream.StreamId;
import dev.spinel.store.types.stream.StreamNack;
import dev.spinel.store.types.stream.StreamValue;

import java.util.Map;

/**
 * XINFO STREAM [FULL [COUNT n]], XINFO GROUPS, XINFO CONSUMERS and XINFO HELP (Redis 7.0's
 * xinfoCommand). {@code radix-tree-nodes} is the node count of the compressed radix tree Redis would
 * hold for the same node keys (see {@link #raxNodes}). Reads under the key's segment lock. Stateless.
 */
final class StreamInfoCommands {
    private StreamInfoCommands() {
    }

    static void register(CommandTable t) {
        t.register("xinfo", (s, a) -> {
            throw Errors.unknownSubcommand(a.cString(1), "XINFO");
        });
        t.registerSub("xinfo", "stream", StreamInfoCommands::stream);
        t.registerSub("xinfo", "groups", StreamInfoCommands::groups);
        t.registerSub("xinfo", "consumers", StreamInfoCommands::consumers);
        t.registerSub("xinfo", "help", (s, a) -> Help.reply(s, "XINFO",
                "CONSUMERS <key> <groupname>",
                "    Show consumers of <groupname>.",
                "GROUPS <key>",
                "    Show the stream consumer groups.",
                "STREAM <key> [FULL [COUNT <count>]",
                "    Show information about the stream."));
    }

    // XINFO CONSUMERS key group
    static void consumers(Session s, Args a) {
        int h = Keys.hash(a, 2);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            StreamValue st = lookup(s, seg, a, h);
            StreamGroup g = st.groupCount() == 0 ? null : st.groups().get(a.copy(3));
            if (g == null) {
                throw new RedisError("NOGROUP No such consumer group '" + a.cString(3) + "' for key name '"
                        + a.cString(2) + "'");
            }
            ReplyBuffer out = s.out();
            out.array(g.consumers.size());
            for (StreamConsumer c : g.consumers.values()) {
                out.map(3);
                out.bulk("name");
                out.bulk(c.name);
                out.bulk("pending");
                out.integer(c.pending.size());
                out.bulk("idle");
                out.integer(Math.max(0, s.now() - c.seenTime));
            }
        } finally {
            seg.unlock();
        }
    }

    // XINFO GROUPS key
    static void groups(Session s, Args a) {
        int h = Keys.hash(a, 2);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            StreamValue st = lookup(s, seg, a, h);
            ReplyBuffer out = s.out();
            out.array(st.groupCount());
            if (st.groupCount() == 0) {
                return;
            }
            for (Map.Entry<byte[], StreamGroup> e : st.groups().entrySet()) {
                StreamGroup g = e.getValue();
                out.map(6);
                out.bulk("name");
                out.bulk(e.getKey());
                out.bulk("consumers");
                out.integer(g.consumers.size());
                out.bulk("pending");
                out.integer(g.pending.size());
                out.bulk("last-delivered-id");
                Streams.id(out, g.lastMs, g.lastSeq);
                entriesRead(out, g);
                out.bulk("lag");
                StreamGroups.lag(out, st, g);
            }
        } finally {
            seg.unlock();
        }
    }

    private static void entriesRead(ReplyBuffer out, StreamGroup g) {
        out.bulk("entries-read");
        if (g.entriesRead != StreamGroup.INVALID_ENTRIES_READ) {
            out.integer(g.entriesRead);
        } else {
            out.nullBulk();
        }
    }

    private static StreamValue lookup(Session s, Segment seg, Args a, int h) {
        StreamValue st = Streams.read(s, seg, a, 2, h);
        if (st == null) {
            throw Errors.NO_SUCH_KEY;
        }
        return st;
    }

    // XINFO STREAM key [FULL [COUNT count]]
    static void stream(Session s, Args a) {
        int h = Keys.hash(a, 2);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            StreamValue st = lookup(s, seg, a, h);
            int optc = a.count() - 3;
            boolean full = optc > 0;
            long count = 10;
            if (full) {
                if ((optc != 1 && optc != 3) || !a.is(3, "FULL") || (optc == 3 && !a.is(4, "COUNT"))) {
                    throw StreamGroupCommands.subcommandSyntax(a, "XINFO");
                }
                if (optc == 3) {
                    count = StreamCommands.parseLong(a, 5);
                    if (count < 0) {
                        count = 10;
                    }
                }
            }
            ReplyBuffer out = s.out();
            out.map(full ? 9 : 10);
            out.bulk("length");
            out.integer(st.size());
            out.bulk("radix-tree-keys");
            out.integer(st.nodeCount());
            out.bulk("radix-tree-nodes");
            out.integer(raxNodes(st));
            out.bulk("last-generated-id");
            Streams.id(out, st.lastMs(), st.lastSeq());
            out.bulk("max-deleted-entry-id");
            Streams.id(out, st.maxDeletedMs(), st.maxDeletedSeq());
            out.bulk("entries-added");
            out.integer(st.entriesAdded());
            out.bulk("recorded-first-entry-id");
            Streams.id(out, st.firstMs(), st.firstSeq());
            byte[] scratch = new byte[24];
            if (!full) {
                out.bulk("groups");
                out.integer(st.groupCount());
                for (boolean rev : new boolean[] {false, true}) {
                    out.bulk(rev ? "last-entry" : "first-entry");
                    StreamCursor c = st.cursor(0, 0, -1L, -1L, rev);
                    if (c.next()) {
                        Streams.entry(out, c, scratch);
                    } else {
                        out.nullBulk();
                    }
                }
                return;
            }
            out.bulk("entries");
            Streams.range(out, st, 0, 0, -1L, -1L, count, false);
            out.bulk("groups");
            out.array(st.groupCount());
            if (st.groupCount() == 0) {
                return;
            }
            for (Map.Entry<byte[], StreamGroup> e : st.groups().entrySet()) {
                StreamGroup g = e.getValue();
                out.map(7);
                out.bulk("name");
                out.bulk(e.getKey());
                out.bulk("last-delivered-id");
                Streams.id(out, g.lastMs, g.lastSeq);
                entriesRead(out, g);
                out.bulk("lag");
                StreamGroups.lag(out, st, g);
                out.bulk("pel-count");
                out.integer(g.pending.size());
                out.bulk("pending");
                out.array((int) limit(g.pending.size(), count));
                int i = 0;
                for (Map.Entry<StreamId, StreamNack> p : g.pending.entrySet()) {
                    if (count != 0 && i++ >= count) {
                        break;
                    }
                    out.array(4);
                    out.bulk(p.getKey().format());
                    out.bulk(p.getValue().consumer.name);
                    out.integer(p.getValue().deliveryTime);
                    out.integer(p.getValue().deliveryCount);
                }
                out.bulk("consumers");
                out.array(g.consumers.size());
                for (StreamConsumer c : g.consumers.values()) {
                    out.map(4);
                    out.bulk("name");
                    out.bulk(c.name);
                    out.bulk("seen-time");
                    out.integer(c.seenTime);
                    out.bulk("pel-count");
                    out.integer(c.pending.size());
                    out.bulk("pending");
                    out.array((int) limit(c.pending.size(), count));
                    int k = 0;
                    for (Map.Entry<StreamId, StreamNack> p : c.pending.entrySet()) {
                        if (count != 0 && k++ >= count) {
                            break;
                        }
                        out.array(3);
                        out.bulk(p.getKey().format());
                        out.integer(p.getValue().deliveryTime);
                        out.integer(p.getValue().deliveryCount);
                    }
                }
            }
        } finally {
            seg.unlock();
        }
    }

    private static long limit(long size, long count) {
        return count == 0 ? size : Math.min(size, count);
    }

    /**
     * Nodes of Redis's radix tree over the 16-byte big-endian node keys: one per branching point, one
     * per run of single-child bytes (a compressed node), one per key (leaf), and the root, which is
     * always there (an empty tree has one node).
     */
    static long raxNodes(StreamValue st) {
        int n = st.nodeCount();
        if (n == 0) {
            return 1;
        }
        byte[][] keys = new byte[n][16];
        for (int i = 0; i < n; i++) {
            long ms = st.nodeMs(i);
            long seq = st.nodeSeq(i);
            for (int b = 0; b < 8; b++) {
                keys[i][b] = (byte) (ms >>> (56 - 8 * b));
                keys[i][8 + b] = (byte) (seq >>> (56 - 8 * b));
            }
        }
        return count(keys, 0, n, 0);
    }

    /** Nodes for keys [from, to) (sorted, sharing their first {@code depth} bytes). */
    private static long count(byte[][] keys, int from, int to, int depth) {
        if (depth == 16) {
            return 1;
        }
        int common = 16;
        for (int i = from + 1; i < to; i++) {
            int d = depth;
            while (d < 16 && keys[i][d] == keys[from][d]) {
                d++;
            }
            common = Math.min(common, d);
        }
        if (to - from == 1) {
            return 2; // a compressed node holding the rest, then the leaf
        }
        if (common > depth) {
            return 1 + count(keys, from, to, common);
        }
        long nodes = 1; // the branching node
        int i = from;
        while (i < to) {
            int j = i + 1;
            while (j < to && keys[j][depth] == keys[i][depth]) {
                j++;
            }
            nodes += count(keys, i, j, depth + 1);
            i = j;
        }
        return nodes;
    }
}
