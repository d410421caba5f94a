package dev.spinel.persistence;

import dev.spinel.protocol.Numbers;
import dev.spinel.store.Entry;
import dev.spinel.store.GrowableString;
import dev.spinel.store.types.ElementVisitor;
import dev.spinel.store.types.stream.StreamConsumer;
import dev.spinel.store.types.stream.StreamCursor;
import dev.spinel.store.types.stream.StreamGroup;
import dev.spinel.store.types.stream.StreamId;
import dev.spinel.store.types.stream.StreamNack;
import dev.spinel.store.types.stream.StreamValue;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * Writes a snapshot as an AOF base made of commands, what Redis 7.0's rewriteAppendOnlyFileRio writes when
 * {@code aof-use-rdb-preamble} is {@code no}: an optional {@code #TS:<unix seconds>} annotation, a
 * {@code FUNCTION LOAD} per library, then per non-empty database {@code SELECT} and per key SET, RPUSH,
 * SADD, ZADD, HMSET (at most {@value #ITEMS_PER_CMD} elements per command, Redis's
 * AOF_REWRITE_ITEMS_PER_CMD), or XADD.../XSETID/XGROUP CREATE/XCLAIM/XGROUP CREATECONSUMER for a
 * stream, each followed by {@code PEXPIREAT} when the key has a TTL. Redis and Spinel both load it.
 *
 * <p>Thread-safety: one instance writes one snapshot on one thread.
 */
public final class AofCommandWriter implements SnapshotVisitor {
    static final int ITEMS_PER_CMD = 64;
    private static final byte[] CRLF = {'\r', '\n'};

    private final OutputStream out;
    private final byte[] num = new byte[24];
    private final byte[] valueScratch = new byte[Entry.MAX_INLINE_STRING];
    private final byte[] fieldScratch = new byte[24];
    private final ElementVisitor bulk = (b, off, len) -> {
        bulk(b, off, len);
        return true;
    };

    private AofCommandWriter(OutputStream out) {
        this.out = new BufferedOutputStream(out, 1 << 16);
    }

    /**
     * Writes the snapshot to {@code os} (flushed, not closed). {@code timestampSeconds} is the #TS annotation's
     * time, or negative for none (aof-timestamp-enabled no). Returns the keys written.
     */
    public static long write(RdbWriter writer, RdbWriter.Snapshot snap, OutputStream os, List<byte[]> functions,
                             long timestampSeconds, int keySaveDelayMicros) {
        AofCommandWriter w = new AofCommandWriter(os);
        try {
            if (timestampSeconds >= 0) {
                w.raw(("#TS:" + timestampSeconds + "\r\n").getBytes(StandardCharsets.US_ASCII));
            }
            for (byte[] code : functions) {
                w.header(3, "FUNCTION");
                w.bulk("LOAD");
                w.bulk(code);
            }
        } catch (RuntimeException e) {
            snap.cancel();
            throw e;
        }
        long keys = writer.walk(snap, w, keySaveDelayMicros);
        try {
            w.out.flush();
        } catch (IOException e) {
            throw new RdbException("Error writing the AOF base", e);
        }
        return keys;
    }

    @Override
    public void database(int index, long size, long volatileKeys) {
        header(2, "SELECT");
        bulk(index);
    }

    @Override
    public void key(byte[] key, int keyLength, ValueCodec codec, Object snapshot, long expireAt, long access) {
        switch (codec.type()) {
            case STRING -> {
                header(3, "SET");
                bulk(key, 0, keyLength);
                if (snapshot instanceof Entry e) {
                    bulk(e.stringBytes(valueScratch), 0, e.stringLength());
                } else if (snapshot instanceof GrowableString g) {
                    bulk(g.array(), 0, g.length()); // frozen by the snapshot: never changes again
                } else {
                    bulk((byte[]) snapshot);
                }
            }
            case LIST -> batches("RPUSH", key, keyLength, (byte[][]) snapshot, 1);
            case SET -> batches("SADD", key, keyLength, (byte[][]) snapshot, 1);
            case HASH -> batches("HMSET", key, keyLength, (byte[][]) snapshot, 2);
            case ZSET -> zadd(key, keyLength, (ZSetCodec.Snap) snapshot);
            case STREAM -> stream(key, keyLength, (StreamValue) snapshot);
        }
        if (expireAt >= 0) {
            header(3, "PEXPIREAT");
            bulk(key, 0, keyLength);
            bulk(expireAt);
        }
    }

    /** {@code cmd key e1 e2 ...}, {@value #ITEMS_PER_CMD} items (of {@code width} elements each) per command. */
    private void batches(String cmd, byte[] key, int keyLength, byte[][] elements, int width) {
        int items = elements.length / width;
        for (int i = 0; i < items; i += ITEMS_PER_CMD) {
            int n = Math.min(ITEMS_PER_CMD, items - i);
            header(2 + n * width, cmd);
            bulk(key, 0, keyLength);
            for (int j = i * width; j < (i + n) * width; j++) {
                bulk(elements[j]);
            }
        }
    }

    private void zadd(byte[] key, int keyLength, ZSetCodec.Snap z) {
        int items = z.members().length;
        for (int i = 0; i < items; i += ITEMS_PER_CMD) {
            int n = Math.min(ITEMS_PER_CMD, items - i);
            header(2 + n * 2, "ZADD");
            bulk(key, 0, keyLength);
            for (int j = i; j < i + n; j++) {
                bulk(Numbers.formatDouble(z.scores()[j])); // %.17g, as Redis's rioWriteBulkDouble: exact on reload
                bulk(z.members()[j]);
            }
        }
    }

    private void stream(byte[] key, int keyLength, StreamValue s) {
        if (s.size() > 0) {
            for (StreamCursor c = s.cursor(0, 0, -1L, -1L, false); c.next(); ) {
                header(3 + c.fieldCount() * 2, "XADD");
                bulk(key, 0, keyLength);
                bulk(StreamId.format(c.ms(), c.seq()));
                c.visitFields(fieldScratch, bulk);
            }
        } else { // an empty stream: created by adding an entry trimmed at once, as Redis does
            header(7, "XADD");
            bulk(key, 0, keyLength);
            bulk("MAXLEN");
            bulk("0");
            bulk("0-1");
            bulk("x");
            bulk("y");
        }
        header(7, "XSETID");
        bulk(key, 0, keyLength);
        bulk(StreamId.format(s.lastMs(), s.lastSeq()));
        bulk("ENTRIESADDED");
        bulk(s.entriesAdded());
        bulk("MAXDELETEDID");
        bulk(StreamId.format(s.maxDeletedMs(), s.maxDeletedSeq()));
        if (s.groupCount() == 0) {
            return;
        }
        for (Map.Entry<byte[], StreamGroup> ge : s.groups().entrySet()) {
            StreamGroup g = ge.getValue();
            header(7, "XGROUP");
            bulk("CREATE");
            bulk(key, 0, keyLength);
            bulk(ge.getKey());
            bulk(StreamId.format(g.lastMs, g.lastSeq));
            bulk("ENTRIESREAD");
            bulk(g.entriesRead);
            for (StreamConsumer c : g.consumers.values()) {
                if (c.pending.isEmpty()) {
                    header(5, "XGROUP");
                    bulk("CREATECONSUMER");
                    bulk(key, 0, keyLength);
                    bulk(ge.getKey());
                    bulk(c.name);
                    continue;
                }
                for (Map.Entry<StreamId, StreamNack> p : c.pending.entrySet()) {
                    // Redis's rioWriteStreamPendingEntry: XCLAIM key group consumer 0 id TIME ms RETRYCOUNT n JUSTID FORCE
                    header(12, "XCLAIM");
                    bulk(key, 0, keyLength);
                    bulk(ge.getKey());
                    bulk(c.name);
                    bulk("0");
                    bulk(p.getKey().format());
                    bulk("TIME");
                    bulk(p.getValue().deliveryTime);
                    bulk("RETRYCOUNT");
                    bulk(p.getValue().deliveryCount);
                    bulk("JUSTID");
                    bulk("FORCE");
                }
            }
        }
    }

    /** {@code *<argc>} and the command name. */
    private void header(int argc, String name) {
        raw('*');
        raw(num, 0, Numbers.writeLong(num, 0, argc));
        raw(CRLF);
        bulk(name);
    }

    private void bulk(String s) {
        bulk(s.getBytes(StandardCharsets.US_ASCII));
    }

    private void bulk(long v) {
        byte[] b = Numbers.toBytes(v);
        bulk(b, 0, b.length);
    }

    private void bulk(byte[] b) {
        bulk(b, 0, b.length);
    }

    private void bulk(byte[] b, int off, int len) {
        raw('$');
        raw(num, 0, Numbers.writeLong(num, 0, len));
        raw(CRLF);
        raw(b, off, len);
        raw(CRLF);
    }

    private void raw(byte[] b) {
        raw(b, 0, b.length);
    }

    private void raw(int c) {
        try {
            out.write(c);
        } catch (IOException e) {
            throw new RdbException("Error writing the AOF base", e);
        }
    }

    private void raw(byte[] b, int off, int len) {
        try {
            out.write(b, off, len);
        } catch (IOException e) {
            throw new RdbException("Error writing the AOF base", e);
        }
    }
}
