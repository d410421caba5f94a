package dev.spinel.server.commands.server;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;

import dev.spinel.protocol.Args;
import dev.spinel.server.commands.common.Help;
import dev.spinel.server.commands.common.NumberArgs;
import dev.spinel.server.config.ConfigException;
import dev.spinel.server.config.Params;
import dev.spinel.server.durability.Persistence;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Session;
import dev.spinel.server.engine.ports.ReplicationFeed;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;
import dev.spinel.server.log.Log;
import dev.spinel.store.Database;
import dev.spinel.store.KeyHash;
import dev.spinel.store.Segment;

/**
 * DEBUG ERROR / LOG / SLEEP / POPULATE / OBJECT / RELOAD / LOADAOF / DIGEST / DIGEST-VALUE / PROTOCOL / REPLICATE /
 * CONFIG-REWRITE-FORCE-ALL / HELP and the two switches of the cron Redis's
 * own suites use (SET-ACTIVE-EXPIRE: active expiry on or off; PAUSE-CRON: the cron's ticks skipped or not;
 * SET-DISABLE-DENY-SCRIPTS: scripts may call noscript commands or not),
 * allowed as the immutable {@code enable-debug-command} says (no, yes, local), with Redis 7.0's refusal
 * text; QUICKLIST-PACKED-THRESHOLD is checked as Redis checks it (Spinel's lists have no plain nodes for it to
 * size). Other DEBUG subcommands (the crash, leak and allocator ones, and switches of internals Spinel does
 * not have: CHANGE-REPL-ID, ...) answer Redis's unknown-subcommand error.
 *
 * <p>Thread-safety: stateless.
 */
final class DebugCommand {
    private static final RedisError DEBUG_NOT_ALLOWED = new RedisError("ERR DEBUG command not allowed. If the "
            + "enable-debug-command option is set to \"local\", you can run it from a local connection, otherwise you "
            + "need to set this option in the configuration file, and then restart the server.");

    private DebugCommand() {
    }

    /** Arguments {@code from}.. of {@code a} as a RESP command (an array of bulk strings). */
    private static byte[] frame(Args a, int from) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] head = ("*" + (a.count() - from) + "\r\n").getBytes(StandardCharsets.US_ASCII);
        out.writeBytes(head);
        for (int i = from; i < a.count(); i++) {
            byte[] v = a.copy(i);
            out.writeBytes(("$" + v.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.writeBytes(v);
            out.writeBytes(CRLF);
        }
        return out.toByteArray();
    }

    private static final byte[] CRLF = {'\r', '\n'};

    static void register(CommandTable t, ServerControl server) {
        t.register("debug", (s, a) -> debug(s, a, server));
    }

    // DEBUG subcommand [argument ...]
    static void debug(Session s, Args a, ServerControl server) {
        Persistence persistence = server.persistence();
        switch (s.engine().config().enableDebugCommand.value()) {
            case "yes" -> { }
            case "local" -> {
                if (!ServerCommands.isLocal(s)) {
                    throw DEBUG_NOT_ALLOWED;
                }
            }
            default -> throw DEBUG_NOT_ALLOWED;
        }
        if (a.count() == 2 && a.is(1, "HELP")) {
            // Redis 7.0.15's lines for the subcommands Spinel has, in Redis's order.
            Help.reply(s, "DEBUG",
                    "AOF-FLUSH-SLEEP <microsec>",
                    "    Server will sleep before flushing the AOF, this is used for testing.",
                    "DIGEST",
                    "    Output a hex signature representing the current DB content.",
                    "DIGEST-VALUE <key> [<key> ...]",
                    "    Output a hex signature of the values of all the specified keys.",
                    "ERROR <string>",
                    "    Return a Redis protocol error with <string> as message. Useful for clients",
                    "    unit tests to simulate Redis errors.",
                    "LOG <message>",
                    "    Write <message> to the server log.",
                    "LOADAOF",
                    "    Flush the AOF buffers on disk and reload the AOF in memory.",
                    "OBJECT <key>",
                    "    Show low level info about `key` and associated value.",
                    "POPULATE <count> [<prefix>] [<size>]",
                    "    Create <count> string keys named key:<num>. If <prefix> is specified then",
                    "    it is used instead of the 'key' prefix. These are not propagated to",
                    "    replicas. Cluster slots are not respected so keys not belonging to the",
                    "    current node can be created in cluster mode.",
                    "PROTOCOL <type>",
                    "    Reply with a test value of the specified type. <type> can be: string,",
                    "    integer, double, bignum, null, array, set, map, attrib, push, verbatim,",
                    "    true, false.",
                    "RELOAD [option ...]",
                    "    Save the RDB on disk and reload it back to memory. Valid <option> values:",
                    "    * MERGE: conflicting keys will be loaded from RDB.",
                    "    * NOFLUSH: the existing database will not be removed before load, but",
                    "      conflicting keys will generate an exception and kill the server.",
                    "    * NOSAVE: the database will be loaded from an existing RDB file.",
                    "    Examples:",
                    "    * DEBUG RELOAD: verify that the server is able to persist, flush and reload",
                    "      the database.",
                    "    * DEBUG RELOAD NOSAVE: replace the current database with the contents of an",
                    "      existing RDB file.",
                    "    * DEBUG RELOAD NOSAVE NOFLUSH MERGE: add the contents of an existing RDB",
                    "      file to the database.",
                    "SET-ACTIVE-EXPIRE <0|1>",
                    "    Setting it to 0 disables expiring keys in background when they are not",
                    "    accessed (otherwise the Redis behavior). Setting it to 1 reenables back the",
                    "    default.",
                    "QUICKLIST-PACKED-THRESHOLD <size>",
                    "    Sets the threshold for elements to be inserted as plain vs packed nodes",
                    "    Default value is 1GB, allows values up to 4GB. Setting to 0 restores to default.",
                    "SET-SKIP-CHECKSUM-VALIDATION <0|1>",
                    "    Enables or disables checksum checks for RDB files and RESTORE's payload.",
                    "SLEEP <seconds>",
                    "    Stop the server for <seconds>. Decimals allowed.",
                    "PAUSE-CRON <0|1>",
                    "    Stop periodic cron job processing.");
        } else if (a.count() == 3 && a.is(1, "ERROR")) {
            // The argument as the error line itself (code included), newlines blanked: clients' tests use it
            // to see how they handle LOADING, READONLY, OOM... without bringing a server into that state.
            byte[] m = a.copy(2);
            byte[] line = new byte[m.length + 3];
            line[0] = '-';
            for (int i = 0; i < m.length; i++) {
                line[i + 1] = m[i] == '\r' || m[i] == '\n' ? (byte) ' ' : m[i];
            }
            line[line.length - 2] = '\r';
            line[line.length - 1] = '\n';
            s.out().raw(line);
        } else if (a.count() == 3 && a.is(1, "LOG")) {
            Log.warning("DEBUG LOG: " + a.string(2));
            s.out().ok();
        } else if (a.count() == 3 && a.is(1, "SLEEP")) {
            debugSleep(s, a.string(2), server);
        } else if (a.count() >= 3 && a.count() <= 5 && a.is(1, "POPULATE")) {
            populate(s, a);
        } else if (a.count() == 3 && a.is(1, "OBJECT")) {
            DebugObject.reply(s, a);
        } else if (a.count() >= 2 && a.is(1, "RELOAD")) {
            reload(s, a, persistence);
        } else if (a.count() >= 2 && a.is(1, "LOADAOF")) {
            DebugLoad.run(s, persistence::debugLoadAof);
        } else if (a.count() == 2 && a.is(1, "DIGEST")) {
            DebugDigest.digest(s);
        } else if (a.count() >= 2 && a.is(1, "DIGEST-VALUE")) {
            DebugDigest.digestValues(s, a);
        } else if (a.count() == 3 && a.is(1, "PROTOCOL")) {
            DebugObject.protocol(s, a.string(2));
        } else if (a.count() >= 3 && a.is(1, "REPLICATE")) {
            // a command for the replicas only, as Redis's hidden DEBUG REPLICATE (tests make replicas diverge with it)
            ReplicationFeed feed = s.engine().hooks().replicationFeed(); // null without replicas, and on a replica
            if (feed != null) {
                feed.appendUnlogged(frame(a, 2));
            }
            s.out().ok();
        } else if (a.count() == 3 && a.is(1, "SET-ACTIVE-EXPIRE")) {
            s.engine().debug().activeExpire(switchValue(a)); // tests turn it off to watch keys expire lazily
            s.out().ok();
        } else if (a.count() == 3 && a.is(1, "SET-DISABLE-DENY-SCRIPTS")) {
            // Redis's suites use it to let scripts call DEBUG, CLIENT LIST...; not in Redis's DEBUG HELP either
            s.engine().debug().scriptsMayCallNoscript(switchValue(a));
            s.out().ok();
        } else if (a.count() == 3 && a.is(1, "QUICKLIST-PACKED-THRESHOLD")) {
            // Redis stores list elements above this size in nodes of their own ("plain" nodes). Spinel's lists
            // have no packed/plain split, so there is nothing for the size to switch: it is checked as Redis
            // checks it (Redis's own list tests set it before exercising large elements) and answered.
            long size;
            try {
                size = Params.memtoull(a.string(2));
            } catch (ConfigException e) {
                size = -1;
            }
            if (size < 0 || Long.compareUnsigned(size, (1L << 32) - (1L << 20)) > 0) {
                throw new RedisError("ERR argument must be a memory value bigger than 1 and smaller than 4gb");
            }
            s.out().ok();
        } else if (a.count() == 3 && a.is(1, "AOF-FLUSH-SLEEP")) {
            // hidden in Redis's DEBUG HELP too; aof.tcl's "fsync always barrier" test checks replies wait for the log
            s.engine().config().aofFlushSleepMicros = (int) atoi(a.string(2));
            s.out().ok();
        } else if (a.count() == 3 && a.is(1, "SET-SKIP-CHECKSUM-VALIDATION")) {
            s.engine().config().skipChecksumValidation = switchValue(a); // tests feed hand-made RESTORE payloads
            s.out().ok();
        } else if (a.count() == 3 && a.is(1, "DROP-CLUSTER-PACKET-FILTER")) {
            // Redis drops received cluster bus packets of this type (-1, or any negative type: none). Spinel has no bus
            // packets (the topology travels over Raft): "drop none" is what it does; a type to drop is refused.
            if (NumberArgs.parseLong(a, 2) >= 0) {
                throw new RedisError("ERR DROP-CLUSTER-PACKET-FILTER: Spinel's cluster has no bus packets to drop");
            }
            s.out().ok();
        } else if (a.count() == 2 && a.is(1, "CONFIG-REWRITE-FORCE-ALL")) {
            // every parameter written, defaults too: Redis's suite restarts from the file and expects the same values
            Path file = s.engine().config().configFile();
            if (file == null) {
                throw new RedisError("ERR CONFIG-REWRITE-FORCE-ALL failed: the server is running without a config file");
            }
            ConfigCommands.rewrite(s, s.engine().config(), file, true);
            s.out().ok();
        } else if (a.count() == 3 && a.is(1, "PAUSE-CRON")) {
            s.engine().debug().cronPaused(switchValue(a));
            s.out().ok();
        } else {
            throw new RedisError("ERR unknown subcommand or wrong number of arguments for '"
                    + ServerCommands.truncate(a.cString(1)) + "'. Try DEBUG HELP.");
        }
    }

    /** Redis's atoi: a leading number, 0 when there is none; non-zero means on. */
    private static boolean switchValue(Args a) {
        return atoi(a.string(2)) != 0;
    }

    /** Redis's atoi: a leading number, 0 when there is none. */
    private static long atoi(String s) {
        String v = s.trim();
        int end = 0;
        while (end < v.length() && (Character.isDigit(v.charAt(end)) || (end == 0 && (v.charAt(0) == '-' || v.charAt(0) == '+')))) {
            end++;
        }
        try {
            return end > 0 ? Long.parseLong(v.substring(0, end)) : 0;
        } catch (NumberFormatException e) {
            return 0; // "-" alone, or out of range
        }
    }

    /**
     * DEBUG RELOAD [MERGE] [NOFLUSH] [NOSAVE]: save the snapshot, empty the dataset, load the snapshot back
     * (see {@link Persistence#debugReload}).
     */
    private static void reload(Session s, Args a, Persistence persistence) {
        boolean save = true;
        boolean flush = true;
        boolean merge = false;
        for (int i = 2; i < a.count(); i++) {
            if (a.is(i, "MERGE")) {
                merge = true;
            } else if (a.is(i, "NOFLUSH")) {
                flush = false;
            } else if (a.is(i, "NOSAVE")) {
                save = false;
            } else {
                throw new RedisError("ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.");
            }
        }
        boolean saveFirst = save;
        boolean flushFirst = flush;
        boolean keepExisting = merge;
        DebugLoad.run(s, () -> persistence.debugReload(saveFirst, flushFirst, keepExisting));
    }

    /**
     * DEBUG POPULATE count [prefix] [size] (Redis's debug.c): adds string keys {@code <prefix>:<j>} for
     * j in 0..count-1 with values {@code value:<j>} (or that text cut or zero-padded to {@code size}
     * bytes), skipping keys that exist. Like Redis it is not a write command: not logged, not counted
     * as a change for save points. Atomic: the database's stripes are held throughout, as Redis's single
     * thread is. A count the heap cannot hold is refused up front with Redis's error for a failed expand.
     */
    private static void populate(Session s, Args a) {
        long count = positiveLong(a, 2);
        long valueSize = a.count() == 5 ? positiveLong(a, 4) : 0;
        byte[] prefix = a.count() >= 4 ? a.copy(3) : "key".getBytes(StandardCharsets.US_ASCII);
        Runtime rt = Runtime.getRuntime();
        long free = rt.maxMemory() - (rt.totalMemory() - rt.freeMemory());
        if (count > free / (POPULATE_BYTES_PER_KEY + valueSize)) {
            throw new RedisError("ERR OOM in dictTryExpand");
        }
        Database db = s.db();
        long now = s.now();
        db.lockAll();
        try {
            for (long j = 0; j < count; j++) {
                byte[] key = cString(concat(prefix, (":" + j).getBytes(StandardCharsets.US_ASCII)));
                int h = KeyHash.hash(key, 0, key.length);
                Segment seg = db.segment(h);
                if (seg.get(key, 0, key.length, h, now) != null) {
                    continue;
                }
                byte[] text = ("value:" + j).getBytes(StandardCharsets.US_ASCII);
                seg.insert(key, h, valueSize == 0 ? text : Arrays.copyOf(text, (int) valueSize), -1);
                s.engine().keyModified(db.index(), key);
            }
        } finally {
            db.unlockAll();
        }
        s.out().ok();
    }

    /** Heap a populated key costs beyond its value (entry, key array, table slot), with headroom. */
    private static final long POPULATE_BYTES_PER_KEY = 128;

    /** Redis formats the key with snprintf into 128 bytes: cut at the first NUL and at 127 bytes. */
    private static byte[] cString(byte[] b) {
        int n = Math.min(b.length, 127);
        for (int i = 0; i < n; i++) {
            if (b[i] == 0) {
                n = i;
                break;
            }
        }
        return n == b.length ? b : Arrays.copyOf(b, n);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] r = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    /** Redis's getPositiveLongFromObjectOrReply with its default message. */
    private static long positiveLong(Args a, int i) {
        long v;
        try {
            v = a.parseLong(i);
        } catch (NumberFormatException e) {
            throw Errors.NOT_POSITIVE;
        }
        if (v < 0) {
            throw Errors.NOT_POSITIVE;
        }
        return v;
    }

    /**
     * DEBUG SLEEP blocks the whole server, as in Redis (whose one thread sleeps): the caller's event loop sleeps
     * and every other loop is held meanwhile, so no client is answered (Redis's tests and clients' timeout tests
     * rely on it). In cluster mode the whole process stops instead ({@link DebugSleep}). The argument is read like
     * C's strtod: a leading number, anything unparsable counting as 0.
     */
    private static void debugSleep(Session s, String arg, ServerControl server) {
        double seconds = leadingDouble(arg);
        long micros = (long) (seconds * 1_000_000);
        if (micros > 0 && s.engine().config().clusterEnabled.value() && DebugSleep.stopProcess(micros)) {
            s.out().ok(); // the whole process was stopped: the cluster saw it silent (DebugSleep)
            return;
        }
        if (micros > 0) {
            Runnable release = server.holdOtherLoops(s.connection().loop(), micros / 1000 + 1);
            try {
                Thread.sleep(micros / 1000, (int) (micros % 1000) * 1000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                release.run();
            }
        }
        s.out().ok();
    }

    private static double leadingDouble(String s) {
        String t = s.stripLeading();
        for (int end = t.length(); end > 0; end--) {
            try {
                String part = t.substring(0, end);
                if (Character.isLetter(part.charAt(part.length() - 1)) && !part.toLowerCase().endsWith("inf")) {
                    continue;
                }
                return Double.parseDouble(part);
            } catch (NumberFormatException e) {
                // try a shorter prefix, as strtod stops at the first character it cannot use
            }
        }
        return 0;
    }
}
