package dev.spinel.server.commands.string;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.LongDouble;
import dev.spinel.server.commands.common.NumberArgs;
import dev.spinel.server.commands.key.Keys;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Notifications;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;
import dev.spinel.store.Counters;
import dev.spinel.store.Entry;
import dev.spinel.store.Segment;

import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;

/**
 * Counters on string values: INCR, DECR, INCRBY, DECRBY (one generic routine, as Redis's
 * incrDecrCommand) and INCRBYFLOAT, which computes in emulated 80-bit long double ({@link
 * LongDouble}) so that the stored digits are Redis's. A counter keeps the key's time to live.
 *
 * <p>Thread-safety: stateless; each command holds its key's segment lock for the read-modify-write.
 */
final class CounterCommands {
    private CounterCommands() {
    }

    static final RedisError DECREMENT_OVERFLOW = new RedisError("ERR decrement would overflow");
    static final RedisError NAN_OR_INFINITY = new RedisError("ERR increment would produce NaN or Infinity");

    static void register(CommandTable t) {
        t.register("incr", CounterCommands::incr);
        t.register("decr", CounterCommands::decr);
        t.register("incrby", CounterCommands::incrby);
        t.register("decrby", CounterCommands::decrby);
        t.register("incrbyfloat", CounterCommands::incrbyfloat);
    }

    // INCR key
    static void incr(Session s, Args a) {
        incrDecr(s, a, 1);
    }

    // DECR key
    static void decr(Session s, Args a) {
        incrDecr(s, a, -1);
    }

    // INCRBY key increment
    static void incrby(Session s, Args a) {
        incrDecr(s, a, NumberArgs.parseLong(a, 2));
    }

    // DECRBY key decrement
    static void decrby(Session s, Args a) {
        long decrement = NumberArgs.parseLong(a, 2);
        if (decrement == Long.MIN_VALUE) {
            throw DECREMENT_OVERFLOW; // its negation does not exist
        }
        incrDecr(s, a, -decrement);
    }

    /** Adds {@code incr} to the integer at key argument 1 (a missing key counts as 0). */
    private static void incrDecr(Session s, Args a, long incr) {
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = Keys.write(s, seg, a, 1, h);
            long value = 0;
            if (e != null) {
                if (!e.isString()) {
                    throw Errors.WRONGTYPE;
                }
                try {
                    value = Counters.parse(e); // in place: no copy of the digits
                } catch (NumberFormatException nfe) {
                    throw Errors.NOT_INTEGER;
                }
            }
            if ((incr < 0 && value < 0 && incr < Long.MIN_VALUE - value)
                    || (incr > 0 && value > 0 && incr > Long.MAX_VALUE - value)) {
                throw Errors.OVERFLOW;
            }
            value += incr;
            if (e == null) { // the new digits go straight into the entry: it is all a counter update allocates
                Counters.insert(seg, a.buffer(), a.offset(1), a.length(1), h, value);
            } else {
                Counters.replace(seg, e, value);
            }
            s.dirty(1);
            s.notify(Notifications.STRING, "incrby", a, 1);
            s.out().integer(value);
        } finally {
            seg.unlock();
        }
    }

    // INCRBYFLOAT key increment
    static void incrbyfloat(Session s, Args a) {
        int h = Keys.hash(a, 1);
        Segment seg = s.db().segment(h);
        seg.lock();
        try {
            Entry e = Keys.write(s, seg, a, 1, h);
            BigDecimal value = BigDecimal.ZERO;
            BigDecimal incr;
            try {
                if (e != null) {
                    value = LongDouble.parse(Keys.string(e));
                }
                incr = LongDouble.parse(a.buffer(), a.offset(2), a.length(2));
            } catch (NumberFormatException nfe) {
                throw Errors.NOT_FLOAT;
            }
            // null is an infinity: any sum with one is infinite or NaN
            BigDecimal sum = value == null || incr == null ? null : LongDouble.add(value, incr);
            if (sum == null) {
                throw NAN_OR_INFINITY;
            }
            byte[] digits = LongDouble.formatHuman(sum).getBytes(StandardCharsets.US_ASCII);
            store(s, seg, e, a, h, digits).stringMark(Entry.STRING_NOT_INT); // createStringObject: never int
            s.notify(Notifications.STRING, "incrbyfloat", a, 1);
            s.out().bulk(digits);
        } finally {
            seg.unlock();
        }
    }

    /** Stores a counter's new value, creating the key or keeping its time to live. */
    private static Entry store(Session s, Segment seg, Entry e, Args a, int h, byte[] v) {
        if (e == null) {
            e = seg.insert(a.copy(1), h, v, -1);
        } else {
            e = seg.replaceValue(e, v);
        }
        s.dirty(1);
        return e;
    }
}
