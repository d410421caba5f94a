package dev.spinel.protocol;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Feeds bytes to a fresh parser in given chunks and records every request (as strings) and the error, if any. */
final class ParserHarness {
    final QueryBuffer buffer = new QueryBuffer();
    final Args args = new Args();
    final RespParser parser = new RespParser(buffer, args);
    final List<List<String>> requests = new ArrayList<>();
    /** Requests with zero arguments (empty inline lines, {@code *0}, {@code *-1}): skipped by callers. */
    int empty;
    String error;
    int largestArray = buffer.array().length;

    ParserHarness maxBulk(long n) {
        parser.maxBulkLength(n);
        return this;
    }

    /** Appends {@code len} bytes and parses everything complete; stops for good after an error. */
    ParserHarness feed(byte[] data, int off, int len) {
        if (error != null) {
            return this;
        }
        buffer.append(data, off, len);
        largestArray = Math.max(largestArray, buffer.array().length);
        try {
            while (parser.next()) {
                if (args.count() == 0) {
                    empty++;
                    continue;
                }
                List<String> r = new ArrayList<>();
                for (int i = 0; i < args.count(); i++) {
                    r.add(new String(args.buffer(), args.offset(i), args.length(i), StandardCharsets.ISO_8859_1));
                }
                requests.add(r);
            }
            buffer.compactIfEmpty();
        } catch (ProtocolException e) {
            error = e.getMessage();
        }
        return this;
    }

    ParserHarness feed(byte[] data) {
        return feed(data, 0, data.length);
    }

    static ParserHarness whole(byte[] data) {
        return new ParserHarness().feed(data);
    }

    static ParserHarness split(byte[] data, int at) {
        return new ParserHarness().feed(data, 0, at).feed(data, at, data.length - at);
    }

    static ParserHarness byteByByte(byte[] data) {
        ParserHarness h = new ParserHarness();
        for (int i = 0; i < data.length; i++) {
            h.feed(data, i, 1);
        }
        return h;
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    static byte[] multibulk(String... parts) {
        StringBuilder b = new StringBuilder("*").append(parts.length).append("\r\n");
        for (String p : parts) {
            b.append('$').append(p.getBytes(StandardCharsets.ISO_8859_1).length).append("\r\n").append(p).append("\r\n");
        }
        return bytes(b.toString());
    }
}
