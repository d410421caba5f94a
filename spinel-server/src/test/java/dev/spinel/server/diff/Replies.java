package dev.spinel.server.diff;

import dev.spinel.protocol.RespReader;
import dev.spinel.protocol.RespValue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Helpers to compare and print raw RESP replies in tests. */
final class Replies {
    private Replies() {
    }

    /** Printable form of raw reply bytes: CR LF and non-printables escaped. */
    static String escape(byte[] b) {
        StringBuilder sb = new StringBuilder();
        for (byte x : b) {
            int c = x & 0xff;
            switch (c) {
                case '\r' -> sb.append("\\r");
                case '\n' -> sb.append("\\n");
                default -> {
                    if (c < 32 || c > 126) {
                        sb.append(String.format("\\x%02x", c));
                    } else {
                        sb.append((char) c);
                    }
                }
            }
            if (sb.length() > 2000) {
                return sb.append("...").toString();
            }
        }
        return sb.toString();
    }

    /**
     * For order-insensitive replies (SMEMBERS, KEYS, HGETALL pairs are kept together): the top-level
     * elements of an aggregate, each re-serialised and sorted; a map's pairs are kept as units.
     */
    static List<String> sortedElements(byte[] raw) {
        RespValue v = new RespReader(raw).read();
        List<String> out = new ArrayList<>();
        switch (v) {
            case RespValue.Array a -> a.items().forEach(i -> out.add(render(i)));
            case RespValue.SetValue s -> s.items().forEach(i -> out.add(render(i)));
            case RespValue.MapValue m -> {
                for (int i = 0; i < m.entries().size(); i += 2) {
                    out.add(render(m.entries().get(i)) + "=>" + render(m.entries().get(i + 1)));
                }
            }
            default -> out.add(render(v));
        }
        out.sort(null);
        out.add(0, v.getClass().getSimpleName());
        return out;
    }

    /**
     * For SCAN-family replies ({@code [cursor, [elements]]}): the cursor as is, then the elements sorted.
     * Any other reply (an error) is rendered whole.
     */
    static List<String> scanElements(byte[] raw) {
        RespValue v = new RespReader(raw).read();
        List<String> out = new ArrayList<>();
        if (v instanceof RespValue.Array a && a.items().size() == 2 && a.items().get(1) instanceof RespValue.Array items) {
            items.items().forEach(i -> out.add(render(i)));
            out.sort(null);
            out.add(0, render(a.items().get(0)));
        } else {
            out.add(render(v));
        }
        return out;
    }

    private static String render(RespValue v) {
        return switch (v) {
            case RespValue.BulkString b -> "$" + new String(b.value(), StandardCharsets.ISO_8859_1);
            case RespValue.Array a -> "*" + a.items().stream().map(Replies::render).toList();
            default -> v.toString();
        };
    }
}
