package dev.spinel.server.replication;

import dev.spinel.protocol.QueryBuffer;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The EOF-marked payload of a diskless full resync read in bulk: whatever sizes the socket's reads come in, the
 * bytes before the 40-byte mark are returned exactly (also when they hold prefixes of the mark), the mark ends the
 * payload, what follows it stays for the stream, and a link cut before the mark is an error.
 */
class StreamReaderTest {
    private static final byte[] MARK = "4f1c0a9e7b3d2c8e6a5f0b1d9c7e3a2f8d6b4c0e".getBytes(StandardCharsets.US_ASCII);

    /** A socket's input: the bytes in reads of random sizes (1 to 70k), then the end. */
    private static InputStream chunked(byte[] data, long seed) {
        Random r = new Random(seed);
        return new InputStream() {
            int at;

            @Override
            public int read() {
                return at < data.length ? data[at++] & 0xff : -1;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                if (at == data.length) {
                    return -1;
                }
                int n = Math.min(Math.min(len, data.length - at), 1 + r.nextInt(r.nextBoolean() ? 50 : 70_000));
                System.arraycopy(data, at, b, off, n);
                at += n;
                return n;
            }
        };
    }

    private static byte[] payload(long seed, int size) {
        Random r = new Random(seed);
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        while (b.size() < size) {
            if (r.nextInt(20) == 0) {
                b.write(MARK, 0, 1 + r.nextInt(MARK.length - 1)); // a prefix of the mark, not the mark
                b.write('Z');
            } else {
                b.write(r.nextInt(256));
            }
        }
        return b.toByteArray();
    }

    @Test
    void theBytesBeforeTheMarkWhateverTheReadSizes() throws Exception {
        for (long seed = 0; seed < 40; seed++) {
            byte[] body = payload(seed, seed < 20 ? (int) seed * 7 : 300_000);
            byte[] after = "*1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII);
            ByteArrayOutputStream wire = new ByteArrayOutputStream();
            wire.write("+FULLRESYNC x 0\r\n".getBytes(StandardCharsets.US_ASCII));
            wire.write(body);
            wire.write(MARK);
            wire.write(after);
            StreamReader in = new StreamReader(chunked(wire.toByteArray(), seed));
            assertEquals("+FULLRESYNC x 0", in.line());
            InputStream p = in.payloadUntilMark(MARK);
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            byte[] b = new byte[1 + (int) (seed % 5) * 20_000];
            int n;
            while ((n = p.read(b, 0, b.length)) >= 0) {
                got.write(b, 0, n);
            }
            assertArrayEquals(body, got.toByteArray(), "seed " + seed);
            assertEquals(-1, p.read());
            assertEquals(wire.size() - after.length, in.consumed(), "seed " + seed);
            byte[] rest = new byte[after.length];
            int r = 0;
            while (r < rest.length) {
                int c = in.source().read(rest, r, rest.length - r);
                if (c < 0) {
                    break;
                }
                r += c;
            }
            // what the reader buffered past the mark plus what the socket still has is the stream
            QueryBuffer q = new QueryBuffer();
            in.drainTo(q);
            byte[] buffered = Arrays.copyOf(q.array(), q.writePos());
            byte[] all = new byte[buffered.length + r];
            System.arraycopy(buffered, 0, all, 0, buffered.length);
            System.arraycopy(rest, 0, all, buffered.length, r);
            assertArrayEquals(after, all, "seed " + seed);
        }
    }

    @Test
    void readUntilMarkAndACutLink() throws Exception {
        byte[] body = payload(7, 100_000);
        byte[] wire = Arrays.copyOf(body, body.length + MARK.length);
        System.arraycopy(MARK, 0, wire, body.length, MARK.length);
        assertArrayEquals(body, new StreamReader(chunked(wire, 1)).readUntilMark(MARK));
        InputStream cut = new StreamReader(chunked(Arrays.copyOf(wire, wire.length - 1), 2)).payloadUntilMark(MARK);
        assertThrows(EOFException.class, cut::readAllBytes);
    }
}
