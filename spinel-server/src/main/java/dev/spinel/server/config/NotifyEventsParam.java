package dev.spinel.server.config;

import java.util.function.IntConsumer;
import java.util.function.IntFunction;
import java.util.function.ToIntFunction;

/**
 * {@code notify-keyspace-events}: event-class letters, stored as flags and printed in Redis's
 * canonical order. The parsing and formatting rules are passed in by the engine, which owns them.
 */
public final class NotifyEventsParam extends Param {
    private final ToIntFunction<String> parser;
    private final IntFunction<String> formatter;
    private volatile IntConsumer onChange = f -> { };
    private volatile int flags;

    public NotifyEventsParam(ToIntFunction<String> parser, IntFunction<String> formatter) {
        super("notify-keyspace-events", true);
        this.parser = parser;
        this.formatter = formatter;
    }

    public void onChange(IntConsumer c) {
        this.onChange = c;
        c.accept(flags);
    }

    @Override
    public String get() {
        return formatter.apply(flags);
    }

    @Override
    public void set(String value) throws ConfigException {
        int f = parser.applyAsInt(value);
        if (f < 0) {
            throw new ConfigException("Invalid event class character. Use 'Ag$lshzxeKEtmdn'.");
        }
        flags = f;
        onChange.accept(f);
    }

    @Override
    public String defaultValue() {
        return "";
    }
}
