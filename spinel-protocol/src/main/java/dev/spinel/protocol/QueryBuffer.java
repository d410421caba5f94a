package dev.spinel.protocol;

/**
 * The bytes a connection has received and not yet consumed. Grows as data arrives (never from a
 * length the client merely claims) and compacts by moving the unconsumed tail to the front.
 *
 * <p>Not thread-safe: owned by one connection, used on its event loop.
 */
public final class QueryBuffer {
    // Small at first: an idle connection costs little (10k idle clients are a target); busy ones grow once.
    private static final int INITIAL = 512;
    private static final int SHRINK_ABOVE = 256 * 1024;
    /**
     * Redis's PROTO_MBULK_BIG_ARG: from this size an argument in progress bounds the buffer's growth to its end,
     * so a client holding a large partial argument holds about its size (Redis sizes its buffer to the argument:
     * CLIENT LIST's qbuf-free and tot-mem, which maxmemory-clients evicts by). Smaller ones double as usual.
     */
    static final int BIG_ARG = 32 * 1024;

    byte[] data;
    int readPos;
    int writePos;
    private RespParser parser;

    public QueryBuffer() {
        this(new byte[INITIAL]);
    }

    /**
     * A buffer that starts on {@code array}, e.g. an event loop's scratch array shared by the loop's idle
     * connections: see {@link #moveTo}.
     */
    public QueryBuffer(byte[] array) {
        this.data = array;
    }

    /** Binds the parser whose saved positions must follow the data when it moves. */
    public void attach(RespParser parser) {
        this.parser = parser;
    }

    public byte[] array() {
        return data;
    }

    public int writePos() {
        return writePos;
    }

    /** Bytes received but not yet consumed by a complete command. */
    public int pending() {
        return writePos - readPos;
    }

    /** Makes room for {@code n} more bytes at {@link #writePos()}; may move or grow the array. */
    public void ensureWritable(int n) {
        if (data.length - writePos >= n) {
            return;
        }
        int live = writePos - readPos;
        if (readPos > 0 && data.length - live >= n) {
            shiftToFront(data);
            return;
        }
        long wanted = bigArgumentWanted();
        long doubled = wanted > 0 ? Math.min((long) data.length * 2, (long) live + wanted) : (long) data.length * 2;
        long want = Math.max(doubled, (long) live + n);
        if (want > Integer.MAX_VALUE - 16) {
            want = Integer.MAX_VALUE - 16;
        }
        shiftToFront(new byte[(int) want]);
    }

    public void advanceWrite(int n) {
        writePos += n;
    }

    /** Appends bytes (used by tests and embedded callers; the server writes into {@link #array()}). */
    public void append(byte[] src, int off, int len) {
        ensureWritable(len);
        System.arraycopy(src, off, data, writePos, len);
        writePos += len;
    }

    /** Called when all complete commands are consumed: resets, and returns a big idle array. */
    public void compactIfEmpty() {
        if (readPos == writePos && (parser == null || !parser.inProgress())) {
            readPos = 0;
            writePos = 0;
            if (data.length > SHRINK_ABOVE) {
                data = new byte[INITIAL];
            }
        }
    }

    /**
     * Moves the unconsumed bytes to the front of {@code target} (at least {@link #pending()} long) and
     * continues on it; a request in progress keeps its parsed state. A connection takes its input off a
     * shared scratch array this way when a read leaves part of a request.
     */
    public void moveTo(byte[] target) {
        if (target.length < pending()) {
            throw new IllegalArgumentException("target too small");
        }
        shiftToFront(target);
    }

    /**
     * Starts over on {@code array} with nothing pending (the parser bound to it must be idle), returning the
     * array it had: lets a pool of idle buffers swap arrays instead of allocating.
     */
    public byte[] restart(byte[] array) {
        byte[] old = data;
        data = array;
        readPos = 0;
        writePos = 0;
        return old;
    }

    /** A private array for {@link #moveTo}: the pending bytes with some room, no smaller than a fresh buffer. */
    public byte[] privateCopyTarget() {
        long wanted = bigArgumentWanted();
        long room = wanted > 0 ? Math.min(pending() / 2, wanted) : pending() / 2;
        return new byte[(int) Math.max(INITIAL, pending() + room)];
    }

    /**
     * The bytes still to come of a large argument in progress (its length was sent, its data is arriving, its CRLF
     * included); 0 otherwise. Growth is still by what arrived (doubling at most): a claimed length alone allocates nothing.
     */
    private long bigArgumentWanted() {
        if (parser == null || parser.bulkInProgress() < BIG_ARG) {
            return 0;
        }
        return parser.bytesWanted(); // also its last few bytes: the array ends where the argument does
    }

    private void shiftToFront(byte[] target) {
        int live = writePos - readPos;
        int delta = readPos;
        System.arraycopy(data, readPos, target, 0, live);
        data = target;
        readPos = 0;
        writePos = live;
        if (parser != null) {
            parser.shifted(delta);
        }
    }
}
