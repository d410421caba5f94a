package dev.spinel.server.net;

/**
 * The query-buffer size one connection would have if it read into a buffer of its own: what CLIENT LIST's
 * qbuf-free shows for a client holding no input ({@link ClientFigures#queryBufferFree}). Plain connections read
 * into their event loop's one buffer, sized by the loop's adaptive guess ({@link LoopReceiveSizes}); that guess
 * follows every connection of the loop, so a fresh client beside many small readers would show the loop's 4 KiB
 * floor where Redis shows the client's own query buffer (its querybuf unit reads it). The figure follows Redis's
 * rule per connection: 16 KiB ({@code PROTO_IOBUF_LEN}) at first and after small requests; grown (doubled, up
 * to 64 KiB, Spinel's largest read) by a read that filled what it was offered; shrunk back (halved, not below
 * 16 KiB) after two reads in a row that used at most half of it, as Redis's cron trims a buffer above its recent
 * peak (one small read, such as the tail of a large request, is not yet a lower peak).
 *
 * <p>The state is one {@code int} kept by the connection (no object per connection): the size, a power of two,
 * with its lowest bit marking "the last read was small". This class is stateless, so thread-safe.
 */
final class OwnReceiveSize {
    static final int INITIAL = 16384;
    private static final int MAXIMUM = 65536;
    private static final int LAST_READ_SMALL = 1;

    private OwnReceiveSize() {
    }

    /** The state after a read of {@code read} bytes into a buffer that offered {@code offered}. */
    static int next(int state, int read, int offered) {
        int size = bytes(state);
        if (read >= size || read >= offered) {
            return Math.min(size << 1, MAXIMUM);
        }
        if (read > size >> 1) {
            return size;
        }
        return (state & LAST_READ_SMALL) != 0 ? Math.max(size >> 1, INITIAL) : size | LAST_READ_SMALL;
    }

    /** The size a state holds, in bytes. */
    static int bytes(int state) {
        return state & ~LAST_READ_SMALL;
    }
}
