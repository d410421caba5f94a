package dev.spinel.server.commands.key;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;
import dev.spinel.store.Entry;
import dev.spinel.store.Segment;
import dev.spinel.store.StringEncoding;
import dev.spinel.store.TypedValue;

/**
 * OBJECT (Redis's object.c): ENCODING, FREQ, IDLETIME, REFCOUNT, HELP. Looks keys up without
 * refreshing their access clock, as Redis does, so that inspecting a key does not change its idle time.
 *
 * <p>Thread-safety: stateless; each subcommand holds its key's stripe lock while it reads the entry.
 */
public final class ObjectCommands {
    private static final RedisError NO_LFU = new RedisError("ERR An LFU maxmemory policy is not selected, "
            + "access frequency not tracked. Please note that when switching between policies at runtime "
            + "LRU and LFU data will take some time to adjust.");
    private static final RedisError LFU_NO_IDLE = new RedisError("ERR An LFU maxmemory policy is selected, "
            + "idle time not tracked. Please note that when switching between policies at runtime "
            + "LRU and LFU data will take some time to adjust.");
    /** Redis's OBJ_SHARED_REFCOUNT: the count reported for its shared small-integer objects. */
    private static final int SHARED_REFCOUNT = Integer.MAX_VALUE;
    /** Redis's OBJ_SHARED_INTEGERS: integers 0..9999 are shared objects. */
    private static final long SHARED_INTEGERS = 10_000;

    private static final String[] HELP = {
        "OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
        "ENCODING <key>",
        "    Return the kind of internal representation used in order to store the value",
        "    associated with a <key>.",
        "FREQ <key>",
        "    Return the access frequency index of the <key>. The returned integer is",
        "    proportional to the logarithm of the recent access frequency of the key.",
        "IDLETIME <key>",
        "    Return the idle time of the <key>, that is the approximated number of",
        "    seconds elapsed since the last access to the key.",
        "REFCOUNT <key>",
        "    Return the number of references of the value associated with the specified",
        "    <key>.",
        "HELP",
        "    Prints this help.",
    };

    private ObjectCommands() {
    }

    static void register(CommandTable t) {
        // The container itself never runs: the engine dispatches OBJECT to one of its subcommands.
        t.register("object", (s, a) -> {
            throw Errors.unknownSubcommand(a.cString(1), "OBJECT");
        });
        t.registerSub("object", "encoding", ObjectCommands::encoding);
        t.registerSub("object", "freq", ObjectCommands::freq);
        t.registerSub("object", "idletime", ObjectCommands::idletime);
        t.registerSub("object", "refcount", ObjectCommands::refcount);
        t.registerSub("object", "help", ObjectCommands::help);
    }

    // OBJECT ENCODING key
    static void encoding(Session s, Args a) {
        int h = Keys.hash(a, 2);
        Segment seg = s.db().segment(h);
        String encoding;
        seg.lock();
        try {
            Entry e = lookup(s, seg, a, h);
            if (e == null) {
                s.out().nullBulk();
                return;
            }
            encoding = encodingOf(e);
        } finally {
            seg.unlock();
        }
        s.out().bulk(encoding);
    }

    // OBJECT FREQ key
    static void freq(Session s, Args a) {
        int h = Keys.hash(a, 2);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = lookup(s, seg, a, h);
            if (e == null) {
                s.out().nullBulk();
                return;
            }
            if (!lfuPolicy(s)) {
                throw NO_LFU;
            }
            s.out().integer(s.engine().keyspace().lfuCounter(e));
        } finally {
            seg.unlock();
        }
    }

    // OBJECT IDLETIME key
    static void idletime(Session s, Args a) {
        int h = Keys.hash(a, 2);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = lookup(s, seg, a, h);
            if (e == null) {
                s.out().nullBulk();
                return;
            }
            if (lfuPolicy(s)) {
                throw LFU_NO_IDLE;
            }
            s.out().integer(s.engine().keyspace().idleSeconds(e));
        } finally {
            seg.unlock();
        }
    }

    // OBJECT REFCOUNT key
    static void refcount(Session s, Args a) {
        int h = Keys.hash(a, 2);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = lookup(s, seg, a, h);
            if (e == null) {
                s.out().nullBulk();
                return;
            }
            s.out().integer(refcountOf(e));
        } finally {
            seg.unlock();
        }
    }

    /**
     * Redis stores the strings "0".."9999" as shared objects (refcount INT_MAX), except when a maxmemory
     * LRU/LFU policy needs a per-key access clock; that is decided when the value is stored, and such a
     * value is marked {@link Entry#STRING_UNSHARED} then.
     */
    /** OBJECT ENCODING's answer for an entry (DEBUG OBJECT shows the same). Caller holds the segment lock. */
    public static String encodingOf(Entry e) {
        if (!e.isString()) {
            return ((TypedValue) e.value()).encoding();
        }
        int len = e.stringLength(); // only the first 20 bytes decide: read in place, never a copy of a grown string
        return StringEncoding.of(Keys.stringInPlace(e), len, e.stringMark());
    }

    /** OBJECT REFCOUNT's answer for an entry (DEBUG OBJECT shows the same). Caller holds the segment lock. */
    public static long refcountOf(Entry e) {
        return e.stringMark() == Entry.STRING_DERIVED && isSharedInteger(e) ? SHARED_REFCOUNT : 1;
    }

    private static boolean isSharedInteger(Entry e) {
        if (!e.isString()) {
            return false;
        }
        int len = e.stringLength();
        if (len > 4) { // "0".."9999"
            return false;
        }
        byte[] b = Keys.stringInPlace(e);
        if (!StringEncoding.isInteger(b, len)) {
            return false;
        }
        long v = StringEncoding.integerValue(b, len);
        return v >= 0 && v < SHARED_INTEGERS;
    }

    // OBJECT HELP
    static void help(Session s, Args a) {
        ReplyBuffer out = s.out();
        out.array(HELP.length);
        for (String line : HELP) {
            out.simple(line);
        }
    }

    private static boolean lfuPolicy(Session s) {
        return s.engine().config().maxmemoryPolicy.value().endsWith("-lfu");
    }

    /** Redis's objectCommandLookup: no access-clock refresh, no keyspace (keymiss) event; hit/miss counted. */
    private static Entry lookup(Session s, Segment seg, Args a, int h) {
        return KeyCommands.peek(s, seg, a, 2, h, false);
    }
}
