package dev.spinel.server.replication;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.ProtocolException;
import dev.spinel.protocol.QueryBuffer;
import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.protocol.RespParser;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.engine.Session;
import dev.spinel.server.engine.clock.CommandChain;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * Applies the master's stream on a replica as the RESP front end runs a client's pipeline: each socket read
 * is appended to a query buffer, parsed in place by the front end's {@link RespParser} (arguments are slices
 * of the buffer: no argument array, copy or command-name String per command), and every complete command in
 * it is applied through {@link Engine#execute} under one hold of the link's apply lock, timed by one
 * {@link CommandChain}. As Redis's master client: no replies, PING and the keepalive newlines only counted,
 * {@code REPLCONF GETACK} answered with the offset before it; the offset moves per processed command but not
 * inside a MULTI block (a drop there makes the master send the whole block again), and what was applied is
 * forwarded unchanged to our own replicas once it counts, a MULTI block whole after its EXEC.
 *
 * <p>Thread-safety: confined to the link's thread (one instance per connection to the master); the offset and
 * the forwarded bytes are published under the link's apply lock, so a snapshot that holds it sees them match
 * the dataset.
 */
final class StreamApplier {
    /** Free room asked of the buffer before each read: a read takes whatever the socket has, up to the array. */
    private static final int READ_MIN = 16 * 1024;
    private static final int INITIAL = 64 * 1024;

    private final MasterLink link;
    private final Engine engine;
    private final Replication replication;
    private final ApplierConnection connection;
    private final QueryBuffer query = new QueryBuffer(new byte[INITIAL]);
    private final Args args = new Args();
    private final RespParser parser = new RespParser(query, args);
    /**
     * Consumed bytes not yet counted: the start of a MULTI block whose EXEC is in a later read (the buffer may
     * move before then, so they are kept here). Rare: empty otherwise.
     */
    private byte[] held = new byte[0];
    private int heldLen;
    /** Offset of the last byte counted before the batch being applied (Redis's reploff). */
    private long offset;
    /** The batch's first byte, and the end of its last command counted, in the query buffer's array. */
    private int batchStart;
    private int counted;
    /** The master's socket, and the offset of the last byte read from it (Redis's read_reploff). */
    private InputStream in;
    private long received;
    /** Read while CLIENT PAUSE held the stream (the query buffer may not move during a batch): applied after it. */
    private final ByteArrayOutputStream readWhilePaused = new ByteArrayOutputStream();

    StreamApplier(MasterLink link, Engine engine, Replication replication, ApplierConnection connection) {
        this.link = link;
        this.engine = engine;
        this.replication = replication;
        this.connection = connection;
        parser.maxBulkLength(Integer.MAX_VALUE - 16); // as Redis, proto-max-bulk-len does not bind the master
    }

    /**
     * Applies the stream until the link drops or closes: first what {@code reader} buffered past the sync's
     * answer or payload, then what the socket delivers.
     */
    void run(StreamReader reader) throws IOException {
        offset = link.processedOffset();
        reader.drainTo(query);
        in = reader.source();
        received = offset + query.pending();
        link.readOffset(received);
        applyBatch();
        while (!link.closed()) {
            if (readWhilePaused.size() > 0) { // what came during a pause, in the order it came
                byte[] b = readWhilePaused.toByteArray();
                readWhilePaused.reset();
                query.ensureWritable(b.length);
                System.arraycopy(b, 0, query.array(), query.writePos(), b.length);
                query.advanceWrite(b.length);
                applyBatch();
                continue;
            }
            query.ensureWritable(READ_MIN);
            byte[] d = query.array();
            int n = in.read(d, query.writePos(), d.length - query.writePos());
            if (n < 0) {
                throw new EOFException("connection lost");
            }
            query.advanceWrite(n);
            received += n;
            link.readOffset(received);
            link.touched(System.currentTimeMillis());
            applyBatch();
        }
    }

    /**
     * Applies every complete command buffered, under one hold of the apply lock; what they count is published
     * (the offset, the bytes forwarded to our replicas in one append) once, at the end, also when one fails.
     */
    private void applyBatch() throws IOException {
        if (query.pending() == 0) {
            return;
        }
        link.applyLock().lock();
        CommandChain chain = CommandChain.current();
        if (chain != null) {
            chain.open();
        }
        byte[] d = query.array(); // does not move before the batch ends: nothing is appended meanwhile
        batchStart = query.writePos() - query.pending(); // the first byte of this batch
        counted = batchStart;
        int at = batchStart;
        try {
            Session applier = link.applier(); // replaced only between two connections
            while (!link.closed()) {
                boolean complete;
                try {
                    complete = parser.next();
                } catch (ProtocolException e) {
                    throw new IOException(e.getMessage());
                }
                if (!complete) {
                    break;
                }
                int end = query.writePos() - query.pending();
                if (args.count() > 0) {
                    apply(applier, chain);
                }
                at = end;
                if (applier.transaction() == null) {
                    counted = at; // as Redis's reploff: not inside a MULTI block (a drop there resends it whole)
                }
            }
        } finally {
            publish(d);
            if (at > counted) { // inside a MULTI block: its bytes so far wait for its EXEC
                hold(d, counted, at - counted);
            }
            if (chain != null) {
                chain.close();
            }
            link.applyLock().unlock();
        }
        query.compactIfEmpty();
    }

    /** The offset after the commands counted so far in this batch. */
    private long countedOffset() {
        return counted > batchStart ? offset + heldLen + (counted - batchStart) : offset;
    }

    /** The batch's counted bytes (after a block held from earlier reads) are processed: offset, and our replicas. */
    private void publish(byte[] d) {
        if (counted > batchStart) {
            ReplicationStream st = replication.stream();
            if (st != null) {
                if (heldLen > 0) {
                    st.appendRaw(held, 0, heldLen);
                }
                st.appendRaw(d, batchStart, counted - batchStart);
            }
            offset = countedOffset();
            heldLen = 0;
            if (held.length > 1 << 20) {
                held = new byte[0]; // a huge block passed: do not keep its buffer
            }
        }
        link.processed(offset);
    }

    private void hold(byte[] d, int from, int len) {
        if (heldLen + len > held.length) {
            held = Arrays.copyOf(held, Math.max(held.length * 2, heldLen + len));
        }
        System.arraycopy(d, from, held, heldLen, len);
        heldLen += len;
    }

    /**
     * While CLIENT PAUSE holds the stream, what the master sends is still read, as Redis reads its master client's
     * socket into the query buffer: slave_read_repl_offset moves, slave_repl_offset does not until the pause ends.
     */
    private void readDuringPause() throws IOException {
        int available = in.available();
        if (available > 0) {
            byte[] b = new byte[Math.min(available, READ_MIN)];
            int n = in.read(b);
            if (n > 0) {
                readWhilePaused.write(b, 0, n);
                received += n;
                link.readOffset(received);
                link.touched(System.currentTimeMillis());
            }
        }
    }

    private void apply(Session applier, CommandChain chain) throws IOException {
        if (args.is(0, "REPLCONF") && args.count() > 1 && args.is(1, "GETACK")) {
            link.processed(countedOffset()); // the offset before the GETACK itself, as Redis 7.0 answers
            if (chain != null) {
                chain.close(); // a write to the socket is no command's time
            }
            link.ackQuietly();
            if (chain != null) {
                chain.open();
            }
            return;
        }
        if (args.is(0, "PING")) {
            return;
        }
        engine.execute(applier, args);
        Args again = connection.takePostponed();
        if (again != null && chain != null) {
            chain.close(); // the wait is no command's time
        }
        while (again != null && !link.closed()) {
            link.sleepWhilePaused(); // CLIENT PAUSE: the stream waits, nothing is lost (the buffer stays as it is)
            readDuringPause();
            connection.resume();
            engine.execute(applier, again);
            again = connection.takePostponed();
        }
        ReplyBuffer out = applier.out();
        if (out.size() > 0 && out.array()[0] == '-') {
            ErrorsToMaster.report(engine, replication.config(), args, out.array(), out.size());
        }
        out.clear();
    }
}
