package dev.spinel.server.durability;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.Numbers;
import dev.spinel.server.engine.Command;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.engine.EngineHooks;
import dev.spinel.server.engine.Propagator;
import dev.spinel.server.engine.ports.ReplicationFeed;
import dev.spinel.server.engine.Session;
import dev.spinel.store.Entry;
import dev.spinel.store.KeyHash;
import dev.spinel.store.types.HashValue;
import io.netty.util.concurrent.FastThreadLocal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Turns each data-changing command into what the append-only log must replay to reach the same
 * state, whenever it runs. Most commands are logged as received; the rewrite table below covers the
 * commands whose effect depends on the time or on the current value (Redis's
 * {@code rewriteClientCommandArgument} cases). Because the engine calls {@link #propagate} with the
 * key's stripe still held, a rewrite reads the key's resulting state (its absolute expiry, its new
 * value) instead of recomputing it:
 * <ul>
 *   <li>SET with EX/PX/EXAT, SETEX, PSETEX → {@code SET key value PXAT <ms>} (other SET flags kept);</li>
 *   <li>EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT → {@code PEXPIREAT key <ms>}, or {@code DEL key} when the
 *       time was in the past and the key was deleted;</li>
 *   <li>GETEX with an expiry option → {@code PEXPIREAT}, with PERSIST → {@code PERSIST};</li>
 *   <li>RESTORE with a relative TTL → its arguments with the TTL absolute and {@code ABSTTL} appended (with
 *       TTL 0 or ABSTTL: verbatim), or {@code DEL} when the TTL had already passed;</li>
 *   <li>INCRBYFLOAT → {@code SET key <new value> KEEPTTL}; HINCRBYFLOAT → {@code HSET key field <new value>};</li>
 *   <li>commands that said what to log ({@link Session#propagateAs}): SPOP → {@code SREM} of the members
 *       popped (a {@code DEL} when it took the whole set), GETDEL → {@code DEL} (UNLINK under
 *       lazyfree-lazy-user-del), BLPOP/BRPOP → {@code LPOP/RPOP}, BLMOVE/BRPOPLPUSH → {@code LMOVE}/{@code RPOPLPUSH},
 *       LMPOP/BLMPOP → {@code LPOP/RPOP key <count popped>}, ZMPOP/BZMPOP → {@code ZPOPMIN/ZPOPMAX key <count popped>},
 *       BZPOPMIN/BZPOPMAX → {@code ZPOPMIN/ZPOPMAX key};</li>
 *   <li>blocked clients served by another client's push ({@link #propagateEffect}): their non-blocking pop/move;
 *       a served XREADGROUP ({@link #propagateServed}): its XCLAIMs, in MULTI/EXEC when several;</li>
 *   <li>streams (said by the commands, as Redis 7.0 propagates them): XADD with its generated ID and an
 *       approximate trim made exact, XTRIM ~ made exact, XREADGROUP/XCLAIM/XAUTOCLAIM as XCLAIM ... FORCE
 *       JUSTID LASTID per entry (several in MULTI/EXEC), XGROUP SETID/CREATECONSUMER after NOACK reads.</li>
 * </ul>
 * Inside EXEC the commands are collected and appended at the end as one MULTI/EXEC block (a single
 * write is logged bare, as Redis 7.0 does).
 *
 * <p>Every frame given to the log is also given to the replication stream ({@link EngineHooks#replicationFeed}),
 * so replicas see exactly what the log sees; without a log ({@code file} null) only the stream is fed.
 *
 * <p>Thread-safety: called from every event loop; per-thread scratch state only ({@link Scratch}), the file is
 * shared.
 */
final class AofPropagator implements Propagator {
    /** The log, or null when only replication is fed (appendonly no with replicas attached). */
    private final AofFile file;
    private final Engine engine;
    /**
     * One look-up per propagated command where three {@code ThreadLocal}s (hash probes of the thread's map) took
     * ~1.4 % of a logging loop's samples; on the event loops (fast-thread-local threads) it is an array index.
     * Static, so servers and propagators replaced by CONFIG SET share one index instead of taking one each.
     */
    private static final FastThreadLocal<Scratch> SCRATCH = new FastThreadLocal<>() {
        @Override
        protected Scratch initialValue() {
            return new Scratch();
        }
    };

    AofPropagator(AofFile file, Engine engine) {
        this.file = file;
        this.engine = engine;
    }

    /** Appends to the log and to the replication stream; returns the log position (0 without a log). */
    private long append(int db, byte[] buf, int off, int len) {
        ReplicationFeed r = engine.hooks().replicationFeed();
        if (r != null) {
            r.append(db, buf, off, len);
        }
        return file == null ? 0 : file.append(db, buf, off, len);
    }

    @Override
    public void propagate(Session s, Command cmd, Args a) {
        Scratch scratch = SCRATCH.get();
        Encoder e = scratch.encoder;
        e.reset();
        List<byte[][]> as = s.propagatedAs();
        if (as != null && !as.isEmpty()) {
            // Several commands from one (XREADGROUP's XCLAIMs) are wrapped in MULTI/EXEC, as Redis 7.0 does.
            boolean wrap = as.size() > 1 && !s.executingTransaction();
            if (wrap) {
                e.command(new byte[][] {MULTI});
            }
            for (byte[][] argv : as) { // the command said what to log (SPOP → SREM, BLPOP → LPOP, ...)
                e.command(argv);
            }
            if (wrap) {
                e.command(new byte[][] {EXEC});
            }
        } else {
            rewrite(s, cmd.name(), a, e);
        }
        if (e.count == 0) {
            return;
        }
        if (s.executingTransaction()) {
            int targets = s.propagateTargets();
            if (targets == 0) {
                return; // a script's redis.set_repl(REPL_NONE): Redis does not even queue the write
            }
            scratch.txCommands.add(e.frame());
            scratch.txDbs.add(new int[] {s.dbIndex(), targets});
            return;
        }
        s.logPosition(append(s.dbIndex(), e.buf, 0, e.len)); // copied into the log's buffer: no frame of its own
    }

    /**
     * A blocked client served by another client's write, logged as its non-blocking form. Not waited
     * for before the served client's reply (its position belongs to the waiter's loop).
     */
    @Override
    public void propagateEffect(int db, byte[][] argv) {
        Encoder e = SCRATCH.get().encoder;
        e.reset();
        e.command(argv);
        append(db, e.buf, 0, e.len);
    }

    @Override
    public void propagateServed(Session served, int db, List<byte[][]> commands) {
        Encoder e = SCRATCH.get().encoder;
        e.reset();
        boolean wrap = commands.size() > 1;
        if (wrap) {
            e.command(new byte[][] {MULTI});
        }
        for (byte[][] argv : commands) {
            e.command(argv);
        }
        if (wrap) {
            e.command(new byte[][] {EXEC});
        }
        byte[] frame = e.frame();
        served.logPosition(append(db, frame, 0, frame.length));
    }

    @Override
    public void execDone(Session s) {
        Scratch scratch = SCRATCH.get();
        List<byte[]> cmds = scratch.txCommands;
        if (cmds.isEmpty()) {
            return;
        }
        ReplicationFeed r = engine.hooks().replicationFeed();
        if (everyTarget(scratch.txDbs)) {
            boolean wrap = cmds.size() > 1;
            if (r != null) {
                r.appendTransaction(scratch.txDbs, cmds, wrap);
            }
            if (file != null) {
                s.logPosition(file.appendTransaction(scratch.txDbs, cmds, wrap));
            }
        } else {
            appendSelectively(s, scratch.txDbs, cmds, r);
        }
        cmds.clear();
        scratch.txDbs.clear();
    }

    private static boolean everyTarget(List<int[]> dbs) {
        for (int[] d : dbs) {
            if (d[1] != TO_ALL) {
                return false;
            }
        }
        return true;
    }

    /**
     * A script that called {@code redis.set_repl}: each write goes to its own targets. As Redis's
     * propagatePendingCommands, the block is wrapped in MULTI/EXEC when more than one write goes anywhere, and
     * then on each side that gets any (Redis would also send an empty MULTI/EXEC to a side that gets none:
     * it changes nothing there, so Spinel leaves it out).
     */
    private void appendSelectively(Session s, List<int[]> dbs, List<byte[]> cmds, ReplicationFeed r) {
        List<int[]> logDbs = new ArrayList<>();
        List<byte[]> logCmds = new ArrayList<>();
        List<int[]> replicaDbs = new ArrayList<>();
        List<byte[]> replicaCmds = new ArrayList<>();
        int going = 0;
        for (int i = 0; i < cmds.size(); i++) {
            int[] d = dbs.get(i);
            boolean toLog = file != null && (d[1] & TO_AOF) != 0;
            boolean toReplicas = r != null && (d[1] & TO_REPLICAS) != 0;
            if (toLog) {
                logDbs.add(d);
                logCmds.add(cmds.get(i));
            }
            if (toReplicas) {
                replicaDbs.add(d);
                replicaCmds.add(cmds.get(i));
            }
            if (toLog || toReplicas) {
                going++;
            }
        }
        boolean wrap = going > 1;
        if (!replicaCmds.isEmpty()) {
            r.appendTransaction(replicaDbs, replicaCmds, wrap);
        }
        if (!logCmds.isEmpty()) {
            s.logPosition(file.appendTransaction(logDbs, logCmds, wrap));
        }
    }

    @Override
    public boolean acknowledged(long position) {
        return file == null || file.acknowledged(position);
    }

    @Override
    public void whenAcknowledged(long position, Runnable task) {
        if (file == null) {
            task.run();
        } else {
            file.whenAcknowledged(position, task);
        }
    }

    @Override
    public boolean writeNow(long position) {
        return file == null || file.writeNow(position);
    }

    private static final byte[] SET = b("SET");
    private static final byte[] DEL = b("DEL");
    private static final byte[] PXAT = b("PXAT");
    private static final byte[] PEXPIREAT = b("PEXPIREAT");
    private static final byte[] PERSIST = b("PERSIST");
    private static final byte[] KEEPTTL = b("KEEPTTL");
    private static final byte[] ABSTTL = b("ABSTTL");
    private static final byte[] HSET = b("HSET");
    private static final byte[] MULTI = b("MULTI");
    private static final byte[] EXEC = b("EXEC");

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** The rewrite table; anything not listed is logged verbatim. */
    private static void rewrite(Session s, String name, Args a, Encoder e) {
        switch (name) {
            case "xreadgroup" -> {
                // logged only through what it said to log (XCLAIM, XGROUP SETID/CREATECONSUMER); a history
                // read changes delivery counters only, which Redis does not propagate either
            }
            case "set" -> {
                int expireArg = -1;
                int getArg = -1; // Redis 7.0 propagates SET without its GET
                for (int i = 3; i < a.count(); i++) {
                    if (a.is(i, "EX") || a.is(i, "PX") || a.is(i, "EXAT") || a.is(i, "PXAT")) {
                        expireArg = i;
                    } else if (a.is(i, "GET")) {
                        getArg = i;
                    }
                }
                if (expireArg < 0 && getArg < 0) {
                    verbatim(a, e);
                    return;
                }
                if (expireArg < 0) {
                    e.begin(a.count() - 1);
                    for (int i = 0; i < a.count(); i++) {
                        if (i != getArg) {
                            e.arg(a, i);
                        }
                    }
                    return;
                }
                Entry en = entry(s, a, 1);
                if (en == null) {
                    delete(a, e);
                    return;
                }
                e.begin(3 + (a.count() - 5) - (getArg < 0 ? 0 : 1) + 2);
                e.bulk(SET);
                e.arg(a, 1);
                e.arg(a, 2);
                for (int i = 3; i < a.count(); i++) {
                    if (i == expireArg || i == expireArg + 1 || i == getArg) {
                        continue;
                    }
                    e.arg(a, i);
                }
                e.bulk(PXAT);
                e.number(en.expireAt());
            }
            case "getset" -> { // as Redis 7.0's getsetCommand, which propagates a SET
                e.begin(3);
                e.bulk(SET);
                e.arg(a, 1);
                e.arg(a, 2);
            }
            case "setex", "psetex" -> {
                Entry en = entry(s, a, 1);
                if (en == null) {
                    delete(a, e);
                    return;
                }
                e.begin(5);
                e.bulk(SET);
                e.arg(a, 1);
                e.arg(a, 3);
                e.bulk(PXAT);
                e.number(en.expireAt());
            }
            case "expire", "pexpire", "expireat", "pexpireat", "getex" -> {
                Entry en = entry(s, a, 1);
                if (en == null) {
                    delete(a, e);
                } else if (en.expireAt() < 0) {
                    e.begin(2);
                    e.bulk(PERSIST);
                    e.arg(a, 1);
                } else {
                    e.begin(3);
                    e.bulk(PEXPIREAT);
                    e.arg(a, 1);
                    e.number(en.expireAt());
                }
            }
            case "restore", "restore-asking" -> {
                // as Redis 7.0's restoreCommand: the client's arguments, a relative TTL made absolute with ABSTTL
                // appended; a key already expired by its TTL is propagated as a DEL
                Entry en = entry(s, a, 1);
                if (en == null) {
                    delete(a, e);
                    return;
                }
                boolean absttl = false;
                for (int i = 4; i < a.count(); i++) {
                    absttl |= a.is(i, "ABSTTL");
                }
                if (absttl || en.expireAt() < 0) {
                    verbatim(a, e);
                    return;
                }
                e.begin(a.count() + 1);
                for (int i = 0; i < a.count(); i++) {
                    if (i == 2) {
                        e.number(en.expireAt());
                    } else {
                        e.arg(a, i);
                    }
                }
                e.bulk(ABSTTL);
            }
            case "incrbyfloat" -> {
                Entry en = entry(s, a, 1);
                if (en == null || !(en.value() instanceof byte[] v)) {
                    verbatim(a, e);
                    return;
                }
                e.begin(4);
                e.bulk(SET);
                e.arg(a, 1);
                e.bulk(v);
                e.bulk(KEEPTTL);
            }
            case "hincrbyfloat" -> {
                // HSET of the result, so replay does not depend on float formatting (Redis 7.0)
                Entry en = entry(s, a, 1);
                byte[] v = en != null && en.value() instanceof HashValue h
                        ? h.get(a.buffer(), a.offset(2), a.length(2)) : null;
                if (v == null) {
                    verbatim(a, e);
                    return;
                }
                e.begin(4);
                e.bulk(HSET);
                e.arg(a, 1);
                e.arg(a, 2);
                e.bulk(v);
            }
            default -> verbatim(a, e);
        }
    }

    /** The key's entry if live (the caller's stripe is held by the engine), else null. */
    private static Entry entry(Session s, Args a, int i) {
        int h = KeyHash.hash(a.buffer(), a.offset(i), a.length(i));
        Entry en = s.db().segment(h).find(a.buffer(), a.offset(i), a.length(i), h);
        if (en == null || (en.expireAt() >= 0 && en.expireAt() <= System.currentTimeMillis())) {
            return null;
        }
        return en;
    }

    private static void delete(Args a, Encoder e) {
        e.begin(2);
        e.bulk(DEL);
        e.arg(a, 1);
    }

    private static void verbatim(Args a, Encoder e) {
        e.begin(a.count());
        for (int i = 0; i < a.count(); i++) {
            e.arg(a, i);
        }
    }

    /**
     * A thread's scratch state: the encoder of the command being propagated and the frames of the transaction it is
     * running, appended as one block by {@link #execDone}. Confined to its thread.
     */
    private static final class Scratch {
        final Encoder encoder = new Encoder();
        final List<byte[]> txCommands = new ArrayList<>();
        final List<int[]> txDbs = new ArrayList<>();
    }

    /** RESP array-of-bulks encoder into a reusable buffer. */
    private static final class Encoder {
        /** The encoded command(s): {@code buf[0, len)}. */
        byte[] buf = new byte[256];
        int len;
        int count;

        void reset() {
            len = 0;
            count = 0;
        }

        void begin(int n) {
            count = n;
            header('*', n);
        }

        /** Appends one whole command (several may share a frame; {@code count} counts commands then). */
        void command(byte[][] argv) {
            int before = count;
            begin(argv.length);
            for (byte[] x : argv) {
                bulk(x);
            }
            count = before + argv.length;
        }

        void arg(Args a, int i) {
            bytes(a.buffer(), a.offset(i), a.length(i));
        }

        void bulk(byte[] v) {
            bytes(v, 0, v.length);
        }

        void number(long v) {
            int digits = Numbers.digits(v);
            header('$', digits);
            ensure(digits + 2);
            len = Numbers.writeLong(buf, len, v);
            buf[len++] = '\r';
            buf[len++] = '\n';
        }

        private void bytes(byte[] b, int off, int n) {
            header('$', n);
            ensure(n + 2);
            System.arraycopy(b, off, buf, len, n);
            len += n;
            buf[len++] = '\r';
            buf[len++] = '\n';
        }

        /** {@code *n\r\n} or {@code $n\r\n}, the digits written in place (this ran per argument: no String each time). */
        private void header(char type, long n) {
            ensure(1 + 20 + 2);
            buf[len++] = (byte) type;
            len = Numbers.writeLong(buf, len, n);
            buf[len++] = '\r';
            buf[len++] = '\n';
        }

        private void ensure(int more) {
            if (len + more > buf.length) {
                buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + more));
            }
        }

        byte[] frame() {
            return Arrays.copyOf(buf, len);
        }
    }
}
