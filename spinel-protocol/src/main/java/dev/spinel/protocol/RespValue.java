package dev.spinel.protocol;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A decoded RESP2/RESP3 reply value. Used where a reply is data rather than a hot-path answer:
 * command metadata, the client's raw {@code execute}, tests.
 */
public sealed interface RespValue {

    record SimpleString(String value) implements RespValue {
    }

    record ErrorReply(String message) implements RespValue {
    }

    record Integer(long value) implements RespValue {
    }

    record BulkString(byte[] value) implements RespValue {
        public String utf8() {
            return new String(value, StandardCharsets.UTF_8);
        }
    }

    record DoubleValue(double value) implements RespValue {
    }

    record BooleanValue(boolean value) implements RespValue {
    }

    record BigNumber(String value) implements RespValue {
    }

    record Verbatim(String format, String text) implements RespValue {
    }

    /** RESP3 {@code _}, or RESP2's null bulk string / null array. */
    record Null() implements RespValue {
    }

    record Array(List<RespValue> items) implements RespValue {
    }

    record SetValue(List<RespValue> items) implements RespValue {
    }

    /** A RESP3 map; {@code entries} alternate key, value. */
    record MapValue(List<RespValue> entries) implements RespValue {
    }

    record Push(List<RespValue> items) implements RespValue {
    }

    /** The text of a string-like value (simple, bulk, verbatim), else {@code null}. */
    static String text(RespValue v) {
        return switch (v) {
            case SimpleString s -> s.value();
            case BulkString b -> b.utf8();
            case Verbatim t -> t.text();
            default -> null;
        };
    }
}
