package dev.spinel.server.commands.server;

import dev.spinel.persistence.DumpPayload;
import dev.spinel.persistence.ValueCodec;
import dev.spinel.persistence.ValueCodecs;
import dev.spinel.protocol.Args;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.commands.key.KeyCommands;
import dev.spinel.server.commands.key.Keys;
import dev.spinel.server.commands.key.ObjectCommands;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.RedisError;
import dev.spinel.store.Entry;
import dev.spinel.store.Segment;
import dev.spinel.store.StringEncoding;
import dev.spinel.store.TypedValue;
import dev.spinel.store.types.ListValue;

import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * DEBUG OBJECT and DEBUG PROTOCOL (Redis's debug.c), the two DEBUG subcommands clients and test suites read
 * replies from.
 *
 * <p>Thread-safety: stateless; DEBUG OBJECT reads the entry under its stripe.
 */
final class DebugObject {
    private static final RedisError NO_SUCH_KEY = new RedisError("ERR no such key");
    /** Redis's DUMP payload: type byte, the object (what serializedlength counts), RDB version (2), CRC64 (8). */
    private static final int DUMP_OVERHEAD = 1 + 2 + 8;

    private DebugObject() {
    }

    /**
     * DEBUG OBJECT key: Redis's line {@code Value at:<addr> refcount:<n> encoding:<enc> serializedlength:<n>
     * lru:<clock> lru_seconds_idle:<s>}, plus the quicklist fields for lists. The address is the entry's identity
     * hash (there is no pointer to show); serializedlength is the RDB length of the value, as DUMP writes it.
     * The quicklist fields describe Spinel's list as one node (its lists are not split into listpack nodes).
     */
    static void reply(Session s, Args a) {
        int h = Keys.hash(a, 2);
        Segment seg = s.db().segment(h);
        String line;
        seg.lock();
        try {
            // Redis looks in the dict directly: an expired key not yet deleted is still described (its suites rely on
            // that to see a key outlive its time to live), and no hit or miss is counted.
            Entry e = seg.find(a.buffer(), a.offset(2), a.length(2), h);
            if (e == null) {
                throw NO_SUCH_KEY;
            }
            Object v = e.value();
            String encoding = ObjectCommands.encodingOf(e);
            long serialized = serializedLength(v);
            long idle = s.engine().keyspace().idleSeconds(e);
            long lru = (System.currentTimeMillis() / 1000 - idle) & ((1 << 24) - 1);
            StringBuilder sb = new StringBuilder()
                    .append("Value at:0x").append(Integer.toHexString(System.identityHashCode(e)))
                    .append(" refcount:").append(ObjectCommands.refcountOf(e))
                    .append(" encoding:").append(encoding)
                    .append(" serializedlength:").append(serialized)
                    .append(" lru:").append(lru)
                    .append(" lru_seconds_idle:").append(idle);
            if (v instanceof ListValue list && "quicklist".equals(encoding)) {
                sb.append(" ql_nodes:1 ql_avg_node:").append(String.format("%.2f", (double) list.size()))
                        .append(" ql_listpack_max:").append(s.engine().config().listMaxListpackSize.value())
                        .append(" ql_compressed:").append(s.engine().config().listCompressDepth.value() != 0 ? 1 : 0)
                        .append(" ql_uncompressed_size:").append(serialized);
            }
            line = sb.toString();
        } finally {
            seg.unlock();
        }
        s.out().simple(line);
    }

    private static long serializedLength(Object v) {
        ValueCodec codec = ValueCodecs.standard().forValue(v);
        if (codec == null) {
            return 0;
        }
        return DumpPayload.create(codec, codec.snapshot(v)).length - DUMP_OVERHEAD;
    }

    /** DEBUG PROTOCOL type: a sample reply of each RESP type (Redis's words and values). */
    static void protocol(Session s, String type) {
        ReplyBuffer out = s.out();
        switch (type.toLowerCase(Locale.ROOT)) {
            case "string" -> out.bulk("Hello World");
            case "integer" -> out.integer(12345);
            case "double" -> out.doubleValue(3.141);
            case "bignum" -> {
                if (out.resp3()) {
                    out.raw(ascii("(1234567999999999999999999999999999999\r\n"));
                } else {
                    out.bulk("1234567999999999999999999999999999999");
                }
            }
            case "null" -> out.nullBulk();
            case "array", "set" -> {
                if (type.equalsIgnoreCase("set")) {
                    out.set(3);
                } else {
                    out.array(3);
                }
                for (int j = 0; j < 3; j++) {
                    out.integer(j);
                }
            }
            case "map" -> {
                out.map(3);
                for (int j = 0; j < 3; j++) {
                    out.integer(j);
                    out.bool(j == 1);
                }
            }
            case "attrib" -> {
                if (out.resp3()) {
                    out.raw(ascii("|1\r\n$14\r\nkey-popularity\r\n*2\r\n$7\r\nkey:123\r\n:90\r\n"));
                }
                out.bulk("Some real reply following the attribute");
            }
            case "push" -> {
                if (!out.resp3()) {
                    throw new RedisError("ERR RESP2 is not supported by this command");
                }
                out.push(2);
                out.bulk("server-cpu-usage");
                out.integer(42);
                // Redis follows the push with a normal reply, so that a client waiting for one is answered.
                out.bulk("Some real reply following the push reply");
            }
            case "verbatim" -> out.verbatim("This is a verbatim\nstring");
            case "true" -> out.bool(true);
            case "false" -> out.bool(false);
            default -> throw new RedisError("ERR Wrong protocol type name. Please use one of the following: "
                    + "string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false");
        }
    }

    private static byte[] ascii(String v) {
        return v.getBytes(StandardCharsets.US_ASCII);
    }
}
