package dev.spinel.protocol;

import java.util.List;

/**
 * Writes a {@link RespValue} tree into a {@link ReplyBuffer}, downgrading RESP3-only types for RESP2
 * connections the way Redis does (maps become flat arrays, sets arrays, booleans integers).
 *
 * <p>Stateless and thread-safe.
 */
public final class RespValueWriter {
    private RespValueWriter() {
    }

    public static void write(ReplyBuffer out, RespValue v) {
        switch (v) {
            case RespValue.SimpleString s -> out.simple(s.value());
            case RespValue.ErrorReply e -> out.error(e.message());
            case RespValue.Integer i -> out.integer(i.value());
            case RespValue.BulkString b -> out.bulk(b.value());
            case RespValue.DoubleValue d -> out.doubleValue(d.value());
            case RespValue.BooleanValue b -> out.bool(b.value());
            case RespValue.BigNumber n -> out.bulk(n.value());
            case RespValue.Verbatim t -> out.verbatim(t.text());
            case RespValue.Null n -> out.nullBulk();
            case RespValue.Array a -> {
                out.array(a.items().size());
                writeAll(out, a.items());
            }
            case RespValue.SetValue s -> {
                out.set(s.items().size());
                writeAll(out, s.items());
            }
            case RespValue.MapValue m -> {
                out.map(m.entries().size() / 2);
                writeAll(out, m.entries());
            }
            case RespValue.Push p -> {
                out.push(p.items().size());
                writeAll(out, p.items());
            }
        }
    }

    private static void writeAll(ReplyBuffer out, List<RespValue> items) {
        for (RespValue item : items) {
            write(out, item);
        }
    }
}
