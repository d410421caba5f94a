package dev.spinel.server.durability;

import dev.spinel.protocol.Args;
import dev.spinel.server.engine.Engine;
import dev.spinel.server.engine.Session;
import dev.spinel.server.engine.ports.InternalConnection;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Replays AOF files (RESP arrays of bulk strings) through the engine with an internal client, as
 * Redis's {@code loadSingleAppendOnlyFile} does. A file that ends inside a command is "truncated":
 * the caller decides (per {@code aof-load-truncated}) whether to cut it at the last complete command.
 * Bytes that are not a command are "corrupt" and stop the load with the file and the offset.
 *
 * <p>Thread-safety: one load at a time (at start-up while clients get -LOADING, or under DEBUG LOADAOF's stripes).
 */
final class AofLoader {
    /** How a file ended. {@code validLength} is the offset just after the last complete command. */
    record Result(long commands, boolean truncated, long validLength) {
    }

    static final class CorruptAof extends IOException {
        CorruptAof(String message) {
            super(message);
        }
    }

    private final Engine engine;

    AofLoader(Engine engine) {
        this.engine = engine;
    }

    /**
     * Replays the commands of {@code file} from offset {@code from} (after an RDB preamble); {@code progress} runs
     * before each command and hears the offset every 1024 (as Redis).
     */
    Result replay(Path file, long from, LoadingProgress progress) throws IOException {
        Session session = engine.open(new InternalConnection("aof:0"));
        session.authenticated(true); // the log replays what authenticated clients did
        session.replaying(true);
        long commands = 0;
        long multiAt = -1; // offset of an open MULTI: a file ending inside a transaction is truncated there
        try (InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
            in.skipNBytes(from);
            Reader r = new Reader(in, file);
            r.offset = from;
            while (true) {
                long start = r.offset;
                List<byte[]> argv;
                try {
                    argv = r.next();
                } catch (Truncated t) {
                    return new Result(commands, true, multiAt >= 0 ? multiAt : start);
                }
                if (argv == null) {
                    return new Result(commands, multiAt >= 0, multiAt >= 0 ? multiAt : start);
                }
                Args args = Args.of(argv.toArray(new byte[0][]));
                if (engine.commands().lookup(args) == null && engine.commands().lookupOriginal(args) == null) {
                    throw new CorruptAof("Unknown command '" + args.string(0) + "' reading the append only file " + file.getFileName());
                }
                if (args.is(0, "MULTI")) {
                    multiAt = start;
                } else if (args.is(0, "EXEC")) {
                    multiAt = -1;
                }
                if ((commands & 1023) == 0) {
                    progress.at(start);
                }
                progress.run();
                engine.execute(session, args);
                session.out().clear(); // replies of a replay go nowhere
                commands++;
            }
        } finally {
            engine.close(session);
        }
    }

    private static final class Truncated extends Exception {
        Truncated() {
            super(null, null, false, false);
        }
    }

    /** Reads {@code *N\r\n($len\r\n<bytes>\r\n){N}} frames, tracking the byte offset. */
    private static final class Reader {
        private final InputStream in;
        private final Path file;
        long offset;

        Reader(InputStream in, Path file) {
            this.in = in;
            this.file = file;
        }

        private int read() throws IOException, Truncated {
            int c = in.read();
            if (c < 0) {
                throw new Truncated();
            }
            offset++;
            return c;
        }

        private long number(char prefix, long at) throws IOException, Truncated {
            int c = read();
            if (c != prefix) {
                throw bad(at);
            }
            long v = 0;
            int digits = 0;
            while ((c = read()) != '\r') {
                if (c < '0' || c > '9' || digits++ > 18) {
                    throw bad(offset - 1);
                }
                v = v * 10 + (c - '0');
            }
            if (read() != '\n' || digits == 0) {
                throw bad(offset - 1);
            }
            return v;
        }

        private CorruptAof bad(long at) {
            return new CorruptAof("Bad file format reading the append only file " + file.getFileName() + " at offset " + at
                    + ": make a backup of your AOF file, then use ./redis-check-aof --fix <filename.manifest>");
        }

        /** The next command, or null at a clean end of file. Annotation lines ("#TS:...") are skipped, as Redis does. */
        List<byte[]> next() throws IOException, Truncated {
            while (true) {
                in.mark(1);
                int first = in.read();
                if (first < 0) {
                    return null;
                }
                if (first != '#') {
                    in.reset();
                    break;
                }
                offset++;
                int c;
                while ((c = in.read()) >= 0 && c != '\n') { // aof-timestamp-enabled's "#TS:<unix time>\r\n"
                    offset++;
                }
                if (c < 0) {
                    return null; // an annotation cut at the end: nothing lost
                }
                offset++;
            }
            long at = offset;
            long n = number('*', at);
            if (n < 1 || n > 1_000_000) {
                throw bad(at);
            }
            List<byte[]> argv = new ArrayList<>((int) n);
            for (int i = 0; i < n; i++) {
                long lenAt = offset;
                long len = number('$', lenAt);
                if (len > 512L * 1024 * 1024) {
                    throw bad(lenAt);
                }
                byte[] arg = new byte[(int) len];
                int got = 0;
                while (got < len) {
                    int k = in.read(arg, got, (int) len - got);
                    if (k < 0) {
                        throw new Truncated();
                    }
                    got += k;
                    offset += k;
                }
                if (read() != '\r' || read() != '\n') {
                    throw bad(offset - 1);
                }
                argv.add(arg);
            }
            return argv;
        }
    }
}
