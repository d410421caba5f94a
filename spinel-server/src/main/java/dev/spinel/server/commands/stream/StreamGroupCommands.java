package dev.spinel.server.commands.stream;

import dev.spinel.protocol.Args;
import dev.spinel.server.commands.common.Help;
import dev.spinel.server.commands.key.Keys;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Notifications;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;
import dev.spinel.store.Segment;
import dev.spinel.store.types.stream.StreamConsumer;
import dev.spinel.store.types.stream.StreamGroup;
import dev.spinel.store.types.stream.StreamId;
import dev.spinel.store.types.stream.StreamValue;

/**
 * Consumer-group management (Redis 7.0's xgroupCommand and xackCommand): XGROUP CREATE, SETID,
 * DESTROY, CREATECONSUMER, DELCONSUMER, HELP and XACK. The pending-list readers and claimers (XPENDING,
 * XCLAIM, XAUTOCLAIM) are in {@link StreamClaimCommands}. Each command holds its key's segment lock
 * throughout. Stateless.
 */
final class StreamGroupCommands {
    private StreamGroupCommands() {
    }

    static void register(CommandTable t) {
        t.register("xgroup", (s, a) -> {
            throw Errors.unknownSubcommand(a.cString(1), "XGROUP");
        });
        t.registerSub("xgroup", "create", (s, a) -> xgroup(s, a, Sub.CREATE));
        t.registerSub("xgroup", "setid", (s, a) -> xgroup(s, a, Sub.SETID));
        t.registerSub("xgroup", "destroy", (s, a) -> xgroup(s, a, Sub.DESTROY));
        t.registerSub("xgroup", "createconsumer", (s, a) -> xgroup(s, a, Sub.CREATECONSUMER));
        t.registerSub("xgroup", "delconsumer", (s, a) -> xgroup(s, a, Sub.DELCONSUMER));
        t.registerSub("xgroup", "help", StreamGroupCommands::help);
        t.register("xack", StreamGroupCommands::xack);
        StreamClaimCommands.register(t);
    }

    private enum Sub { CREATE, SETID, DESTROY, CREATECONSUMER, DELCONSUMER }

    static RedisError subcommandSyntax(Args a, String container) {
        return new RedisError("ERR unknown subcommand or wrong number of arguments for '"
                + truncate(a.cString(1)) + "'. Try " + container + " HELP.");
    }

    private static String truncate(String s) {
        return s.length() > 128 ? s.substring(0, 128) : s; // Redis's %.128s
    }

    // XGROUP CREATE key group id|$ [MKSTREAM] [ENTRIESREAD n] / SETID key group id|$ [ENTRIESREAD n]
    // XGROUP DESTROY key group / CREATECONSUMER key group consumer / DELCONSUMER key group consumer
    static void xgroup(Session s, Args a, Sub sub) {
        boolean mkstream = false;
        long entriesRead = StreamGroup.INVALID_ENTRIES_READ;
        if (sub == Sub.CREATE || sub == Sub.SETID) {
            for (int i = 5; i < a.count(); ) {
                if (sub == Sub.CREATE && a.is(i, "MKSTREAM")) {
                    mkstream = true;
                    i++;
                } else if (a.is(i, "ENTRIESREAD") && i + 1 < a.count()) {
                    entriesRead = StreamCommands.parseLong(a, i + 1);
                    if (entriesRead < 0 && entriesRead != StreamGroup.INVALID_ENTRIES_READ) {
                        throw new RedisError("ERR value for ENTRIESREAD must be positive or -1");
                    }
                    i += 2;
                } else {
                    throw subcommandSyntax(a, "XGROUP");
                }
            }
        }
        int h = Keys.hash(a, 2);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            StreamValue st = Streams.write(s, seg, a, 2, h);
            byte[] groupName = a.copy(3);
            StreamGroup g = null;
            if (!mkstream) {
                if (st == null) {
                    throw new RedisError("ERR The XGROUP subcommand requires the key to exist. Note that for CREATE "
                            + "you may want to use the MKSTREAM option to create an empty stream automatically.");
                }
                g = st.groupCount() == 0 ? null : st.groups().get(groupName);
                if (g == null && (sub == Sub.SETID || sub == Sub.CREATECONSUMER || sub == Sub.DELCONSUMER)) {
                    throw new RedisError("NOGROUP No such consumer group '" + a.cString(3) + "' for key name '"
                            + a.cString(2) + "'");
                }
            }
            switch (sub) {
                case CREATE -> create(s, a, seg, h, st, groupName, entriesRead);
                case SETID -> {
                    if (a.count() != 5 && a.count() != 7) {
                        throw subcommandSyntax(a, "XGROUP");
                    }
                    long ms;
                    long seq;
                    if (isDollar(a, 4)) {
                        ms = st.lastMs();
                        seq = st.lastSeq();
                    } else {
                        Streams.Id id = Streams.parseId(a, 4, 0, false, false);
                        ms = id.ms();
                        seq = id.seq();
                    }
                    g.lastMs = ms;
                    g.lastSeq = seq;
                    g.entriesRead = entriesRead;
                    s.dirtyQuietly(1);
                    s.notify(Notifications.STREAM, "xgroup-setid", a, 2);
                    s.out().ok();
                }
                case DESTROY -> {
                    g = st.groupCount() == 0 ? null : st.groups().get(groupName);
                    if (g == null) {
                        s.out().integer(0);
                        return;
                    }
                    long before = st.memoryUsage();
                    st.groups().remove(groupName);
                    seg.adjustMemory(st.memoryUsage() - before);
                    s.dirtyQuietly(1);
                    s.notify(Notifications.STREAM, "xgroup-destroy", a, 2);
                    // blocked XREADGROUP clients of this group get -NOGROUP
                    s.engine().blocking().signal(s.db(), a.buffer(), a.offset(2), a.length(2));
                    s.out().integer(1);
                }
                case CREATECONSUMER -> {
                    byte[] name = a.copy(4);
                    if (g.consumers.containsKey(name)) {
                        s.out().integer(0);
                        return;
                    }
                    long before = st.memoryUsage();
                    g.consumers.put(name, new StreamConsumer(name, s.now()));
                    seg.adjustMemory(st.memoryUsage() - before);
                    s.dirtyQuietly(1);
                    s.notify(Notifications.STREAM, "xgroup-createconsumer", a, 2);
                    s.out().integer(1);
                }
                case DELCONSUMER -> {
                    StreamConsumer c = g.consumers.get(a.copy(4));
                    long pending = 0;
                    if (c != null) {
                        long before = st.memoryUsage();
                        pending = c.pending.size();
                        for (StreamId id : c.pending.keySet()) {
                            g.pending.remove(id);
                        }
                        g.consumers.remove(c.name);
                        seg.adjustMemory(st.memoryUsage() - before);
                        s.dirtyQuietly(1);
                        s.notify(Notifications.STREAM, "xgroup-delconsumer", a, 2);
                    }
                    s.out().integer(pending);
                }
                default -> throw subcommandSyntax(a, "XGROUP");
            }
        } finally {
            seg.unlock();
        }
    }

    private static void create(Session s, Args a, Segment seg, int h, StreamValue st, byte[] groupName, long entriesRead) {
        if (a.count() > 8) {
            throw subcommandSyntax(a, "XGROUP");
        }
        long ms;
        long seq;
        if (isDollar(a, 4)) {
            ms = st == null ? 0 : st.lastMs();
            seq = st == null ? 0 : st.lastSeq();
        } else {
            Streams.Id id = Streams.parseId(a, 4, 0, true, false);
            ms = id.ms();
            seq = id.seq();
        }
        boolean created = false;
        if (st == null) {
            st = new StreamValue(s.engine().config().collectionSettings);
            seg.insert(a.copy(2), h, st, -1);
            created = true;
        }
        if (st.groupCount() > 0 && st.groups().containsKey(groupName)) {
            throw new RedisError("BUSYGROUP Consumer Group name already exists");
        }
        long before = st.memoryUsage();
        st.groups().put(groupName, new StreamGroup(ms, seq, entriesRead));
        seg.adjustMemory(st.memoryUsage() - before);
        if (created) {
            s.dirty(1); // MKSTREAM signals the new key (WATCH fails); adding a group alone does not
        } else {
            s.dirtyQuietly(1);
        }
        s.notify(Notifications.STREAM, "xgroup-create", a, 2);
        s.out().ok();
    }

    private static boolean isDollar(Args a, int i) {
        return a.length(i) == 1 && a.byteAt(i, 0) == '$';
    }

    // XGROUP HELP
    static void help(Session s, Args a) {
        Help.reply(s, "XGROUP",
                "CREATE <key> <groupname> <id|$> [option]",
                "    Create a new consumer group. Options are:",
                "    * MKSTREAM",
                "      Create the empty stream if it does not exist.",
                "    * ENTRIESREAD entries_read",
                "      Set the group's entries_read counter (internal use).",
                "CREATECONSUMER <key> <groupname> <consumer>",
                "    Create a new consumer in the specified group.",
                "DELCONSUMER <key> <groupname> <consumer>",
                "    Remove the specified consumer.",
                "DESTROY <key> <groupname>",
                "    Remove the specified group.",
                "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
                "    Set the current group ID and entries_read counter.");
    }

    // XACK key group id [id ...]
    static void xack(Session s, Args a) {
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            StreamValue st = Streams.read(s, seg, a, 1, h);
            StreamGroup g = st == null || st.groupCount() == 0 ? null : st.groups().get(a.copy(2));
            if (g == null) {
                s.out().integer(0);
                return;
            }
            StreamId[] ids = new StreamId[a.count() - 3];
            for (int i = 3; i < a.count(); i++) {
                Streams.Id id = Streams.parseId(a, i, 0, true, false);
                ids[i - 3] = new StreamId(id.ms(), id.seq());
            }
            long before = st.memoryUsage();
            int acked = 0;
            for (StreamId id : ids) {
                var nack = g.pending.remove(id);
                if (nack != null) {
                    nack.consumer.pending.remove(id);
                    acked++;
                }
            }
            seg.adjustMemory(st.memoryUsage() - before);
            s.dirtyQuietly(acked);
            s.out().integer(acked);
        } finally {
            seg.unlock();
        }
    }
}
