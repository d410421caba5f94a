package dev.spinel.server.commands.server;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.Numbers;
import dev.spinel.server.commands.key.Keys;
import dev.spinel.server.engine.Session;
import dev.spinel.store.Database;
import dev.spinel.store.Entry;
import dev.spinel.store.Keyspace;
import dev.spinel.store.Segment;
import dev.spinel.store.types.HashValue;
import dev.spinel.store.types.ListValue;
import dev.spinel.store.types.SetValue;
import dev.spinel.store.types.ZSetValue;
import dev.spinel.store.types.stream.StreamCursor;
import dev.spinel.store.types.stream.StreamValue;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * DEBUG DIGEST and DEBUG DIGEST-VALUE, computed as Redis 7.0 computes them (debug.c), so that the same data
 * gives the same 40 hex digits on Spinel and on redis-server. Redis's test suites compare digests before and
 * after a reload, a DUMP/RESTORE or a replica sync, and tests written against Redis hold literal digests.
 *
 * <p>The scheme: {@code xor(d, data)} XORs SHA1(data) into d (order does not matter), {@code mix(d, data)}
 * does that and then replaces d by SHA1(d) (order matters). A value's digest mixes its type number (4 bytes,
 * big-endian), then its content: a string's bytes; each list element in order; each set member XORed;
 * each zset element and each hash pair as a digest of their own (member then score as {@code %.17g}; field
 * then value) XORed in as data (so hashed once more); each stream entry's ID as {@code ms.seq} then its fields and values in order. A key
 * with a time to live XORs in the 10 bytes {@code !!expire!!}. The dataset's digest mixes each non-empty
 * database's number and XORs in each key's digest, again as data (mix of the key name, then its value's digest).
 * Keys logically expired but still stored count, as they do in Redis.
 *
 * <p>Thread-safety: stateless. DEBUG DIGEST holds every stripe of every database while it reads, so it sees
 * one state of the dataset; DEBUG DIGEST-VALUE holds each key's stripe while it reads that key.
 */
final class DebugDigest {
    private static final byte[] EXPIRE_MARK = "!!expire!!".getBytes(StandardCharsets.US_ASCII);
    private static final int LEN = 20;

    private DebugDigest() {
    }

    /** DEBUG DIGEST: the whole dataset's digest, all zeros when it is empty. */
    static void digest(Session s) {
        byte[] dataset = new byte[LEN];
        Keyspace ks = s.engine().keyspace();
        ks.lockAll();
        try {
            Digester d = new Digester();
            for (int i = 0; i < ks.databases(); i++) {
                Database db = ks.db(i);
                if (db.size() == 0) {
                    continue;
                }
                d.mix(dataset, int32(i));
                for (int seg = 0; seg < Database.SEGMENTS; seg++) {
                    db.segmentAt(seg).forEach(e -> {
                        byte[] keyDigest = new byte[LEN];
                        d.mix(keyDigest, e.key());
                        d.value(keyDigest, e);
                        d.xor(dataset, keyDigest);
                    });
                }
            }
        } finally {
            ks.unlockAll();
        }
        s.out().simple(HexFormat.of().formatHex(dataset));
    }

    /** DEBUG DIGEST-VALUE key [key ...]: each value's digest (no key name in it), zeros for a missing key. */
    static void digestValues(Session s, Args a) {
        String[] hex = new String[a.count() - 2];
        Digester d = new Digester();
        for (int i = 2; i < a.count(); i++) {
            byte[] digest = new byte[LEN];
            int h = Keys.hash(a, i);
            Segment seg = s.db().segment(h);
            seg.lock();
            try {
                // Redis reads the dictionary directly: a key logically expired but not yet deleted still counts.
                Entry e = seg.find(a.buffer(), a.offset(i), a.length(i), h);
                if (e != null) {
                    d.value(digest, e);
                }
            } finally {
                seg.unlock();
            }
            hex[i - 2] = HexFormat.of().formatHex(digest);
        }
        s.out().array(hex.length);
        for (String x : hex) {
            s.out().simple(x);
        }
    }

    private static byte[] int32(int v) {
        return new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
    }

    private static void xorInto(byte[] digest, byte[] hash) {
        for (int j = 0; j < LEN; j++) {
            digest[j] ^= hash[j];
        }
    }

    /** One SHA-1 engine reused for every step of one command. Not thread-safe. */
    private static final class Digester {
        private final MessageDigest sha1;
        private final byte[] scratch = new byte[32];

        Digester() {
            try {
                sha1 = MessageDigest.getInstance("SHA-1");
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("every Java runtime has SHA-1", e);
            }
        }

        void xor(byte[] digest, byte[] b, int off, int len) {
            sha1.update(b, off, len);
            xorInto(digest, sha1.digest());
        }

        void xor(byte[] digest, byte[] b) {
            xor(digest, b, 0, b.length);
        }

        void mix(byte[] digest, byte[] b, int off, int len) {
            xor(digest, b, off, len);
            sha1.update(digest);
            System.arraycopy(sha1.digest(), 0, digest, 0, LEN);
        }

        void mix(byte[] digest, byte[] b) {
            mix(digest, b, 0, b.length);
        }

        /** Redis's xorObjectDigest: the value's type and content, and whether the key has a time to live. */
        void value(byte[] digest, Entry e) {
            Object v = e.value();
            switch (v) {
                case byte[] str -> {
                    mix(digest, int32(0));
                    mix(digest, str);
                }
                case ListValue list -> {
                    mix(digest, int32(1));
                    list.forEach(0, list.length() - 1, false, (b, off, len) -> {
                        mix(digest, b, off, len);
                        return true;
                    });
                }
                case SetValue set -> {
                    mix(digest, int32(2));
                    for (int p = set.first(); p >= 0; p = set.next(p)) {
                        xor(digest, set.member(p));
                    }
                }
                case ZSetValue zset -> {
                    mix(digest, int32(3));
                    byte[] element = new byte[LEN];
                    for (ZSetValue.Cursor c = zset.cursor(0); c.valid(); c.next()) {
                        Arrays.fill(element, (byte) 0);
                        mix(element, c.memberArray(), c.memberOffset(), c.memberLength());
                        mix(element, Numbers.formatG(c.score(), 17).getBytes(StandardCharsets.US_ASCII));
                        xor(digest, element);
                    }
                }
                case HashValue hash -> {
                    mix(digest, int32(4));
                    byte[] element = new byte[LEN];
                    hash.forEach((k, koff, klen, val, voff, vlen) -> {
                        Arrays.fill(element, (byte) 0);
                        mix(element, k, koff, klen);
                        mix(element, val, voff, vlen);
                        xor(digest, element);
                    });
                }
                case StreamValue stream -> {
                    mix(digest, int32(6));
                    StreamCursor c = stream.cursor(0, 0, -1L, -1L, false);
                    while (c.next()) {
                        mix(digest, (Long.toUnsignedString(c.ms()) + "." + Long.toUnsignedString(c.seq()))
                                .getBytes(StandardCharsets.US_ASCII));
                        c.visitFields(scratch, (b, off, len) -> {
                            mix(digest, b, off, len);
                            return true;
                        });
                    }
                }
                default -> throw new IllegalStateException("no digest for " + v.getClass());
            }
            if (e.expireAt() >= 0) {
                xor(digest, EXPIRE_MARK);
            }
        }
    }
}
