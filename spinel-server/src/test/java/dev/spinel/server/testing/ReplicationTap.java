package dev.spinel.server.testing;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What a server propagates, read as a replica reads it (Redis's test helper attach_to_replication_stream): SYNC,
 * the RDB payload skipped, then the commands of the stream one by one. PINGs are made rare (repl-ping-replica-period
 * 3600) so the stream holds the writes only.
 */
public final class ReplicationTap implements AutoCloseable {
    private final Socket socket;
    private final InputStream in;

    private ReplicationTap(Socket socket) throws IOException {
        this.socket = socket;
        this.in = new BufferedInputStream(socket.getInputStream());
    }

    public static ReplicationTap attach(int port) throws IOException {
        try (RawClient c = new RawClient(port)) {
            c.call("CONFIG", "SET", "repl-ping-replica-period", "3600");
        }
        Socket s = new Socket("127.0.0.1", port);
        s.setSoTimeout(20_000);
        ReplicationTap tap = new ReplicationTap(s);
        s.getOutputStream().write("SYNC\r\n".getBytes(StandardCharsets.US_ASCII));
        String count;
        do {
            count = tap.line(); // empty lines are the master's keep-alives while it prepares the payload
        } while (count.isEmpty());
        if (!count.startsWith("$")) {
            throw new IOException("SYNC answered " + count);
        }
        tap.in.skipNBytes(Long.parseLong(count.substring(1)));
        return tap;
    }

    /** The next command of the stream (its name lowercased), or null when none comes within {@code millis}. */
    public List<String> next(int millis) throws IOException {
        socket.setSoTimeout(millis);
        String head;
        try {
            head = line();
        } catch (SocketTimeoutException e) {
            return null;
        }
        socket.setSoTimeout(20_000);
        if (!head.startsWith("*")) {
            throw new IOException("not a command in the stream: " + head);
        }
        int n = Integer.parseInt(head.substring(1));
        List<String> argv = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            String len = line();
            byte[] arg = in.readNBytes(Integer.parseInt(len.substring(1)));
            in.skipNBytes(2);
            String s = new String(arg, StandardCharsets.ISO_8859_1);
            argv.add(i == 0 ? s.toLowerCase(Locale.ROOT) : s);
        }
        return argv;
    }

    /**
     * The commands up to and including the first whose name is {@code last} (SELECT and PING left out), or
     * what came before nothing more arrived for two seconds.
     */
    public List<List<String>> until(String last) throws IOException {
        List<List<String>> cmds = new ArrayList<>();
        List<String> c;
        while ((c = next(2_000)) != null) {
            if (!c.getFirst().equals("select") && !c.getFirst().equals("ping")) {
                cmds.add(c);
            }
            if (c.getFirst().equals(last)) {
                break;
            }
        }
        return cmds;
    }

    private String line() throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != '\n') {
            if (c < 0) {
                throw new EOFException("the stream ended");
            }
            if (c != '\r') {
                b.write(c);
            }
        }
        return b.toString(StandardCharsets.ISO_8859_1);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
