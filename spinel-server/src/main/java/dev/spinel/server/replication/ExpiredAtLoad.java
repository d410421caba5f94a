package dev.spinel.server.replication;

import dev.spinel.persistence.KeyspaceLoader;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The keys the start-up load of an RDB skipped as already expired, whose deletions a restarted master puts in the
 * backlog it restores from the RDB's replication info, as Redis 7.0's rdbLoad with RDBFLAGS_FEED_REPL: its
 * replicas, which kept those keys (a replica never expires keys itself), get their DELs (UNLINKs under
 * {@code lazyfree-lazy-expire}) with the partial resync, and the offset grows by them. A replica, or a master
 * whose RDB carries no replication info (no backlog to continue), sends nothing.
 *
 * <p>Thread-safety: filled by the start-up load and fed once after it, on the server's start-up thread.
 */
public final class ExpiredAtLoad implements KeyspaceLoader.ExpiredKeys {
    private record Key(int db, byte[] name) {
    }

    private List<Key> keys = new ArrayList<>();

    @Override
    public void skipped(int db, byte[] key) {
        keys.add(new Key(db, key));
    }

    /** After {@link Replication#restore}: the deletions go into the restored backlog; the keys are forgotten either way. */
    public void feed(Replication replication) {
        List<Key> l = keys;
        keys = List.of();
        ReplicationStream st = replication.stream();
        if (st == null || replication.isReplica()) {
            return;
        }
        byte[] verb = replication.config().lazyfreeLazyExpire.value() ? UNLINK : DEL;
        for (Key k : l) {
            byte[] f = frame(verb, k.name);
            st.append(k.db, f, 0, f.length);
        }
    }

    private static final byte[] DEL = "DEL".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] UNLINK = "UNLINK".getBytes(StandardCharsets.US_ASCII);

    private static byte[] frame(byte[] verb, byte[] key) {
        byte[] head = ("*2\r\n$" + verb.length + "\r\n").getBytes(StandardCharsets.US_ASCII);
        byte[] mid = ("\r\n$" + key.length + "\r\n").getBytes(StandardCharsets.US_ASCII);
        byte[] f = new byte[head.length + verb.length + mid.length + key.length + 2];
        int p = 0;
        for (byte[] part : new byte[][] {head, verb, mid, key}) {
            System.arraycopy(part, 0, f, p, part.length);
            p += part.length;
        }
        f[p] = '\r';
        f[p + 1] = '\n';
        return f;
    }
}
