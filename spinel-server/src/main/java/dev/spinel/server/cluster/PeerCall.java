package dev.spinel.server.cluster;

import dev.spinel.server.config.ServerConfig;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * A short RESP conversation with another node's client port (what nodes ask each other outside Raft:
 * CLUSTER NODES at MEET, replication offsets at failover, the pause of a manual failover). Replies are
 * read as text: a simple or error line as is, a bulk string as its contents.
 *
 * <p>Not thread-safe: one instance per conversation, on the thread that opened it.
 */
final class PeerCall implements AutoCloseable {
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    PeerCall(String host, int port, int timeoutMs) throws IOException {
        socket = new Socket();
        try {
            socket.connect(new InetSocketAddress(host.isEmpty() ? "127.0.0.1" : host, port), timeoutMs);
            socket.setSoTimeout(timeoutMs);
            in = socket.getInputStream();
            out = socket.getOutputStream();
        } catch (IOException e) {
            socket.close();
            throw e;
        }
    }

    /** AUTH's arguments for the links to other nodes: none without masterauth, else [masteruser] masterauth. */
    static String[] credentials(ServerConfig config) {
        String pass = config.masterauth.value();
        String user = config.masteruser.value();
        return pass.isEmpty() ? new String[0] : user.isEmpty() ? new String[]{pass} : new String[]{user, pass};
    }

    /** This end's address (how the other node sees this one). */
    String localAddress() {
        return socket.getLocalAddress().getHostAddress();
    }

    /** Sends one command; its reply: "+OK"/"-ERR ..." lines as read, a bulk string's contents. */
    String call(String... args) throws IOException {
        out.write(command(args));
        out.flush();
        String head = readLine();
        if (head.startsWith("$") || head.startsWith("=")) {
            int len = Integer.parseInt(head.substring(1));
            if (len < 0) {
                return null;
            }
            byte[] b = in.readNBytes(len + 2);
            if (b.length < len) {
                throw new IOException("connection closed");
            }
            return new String(b, 0, len, StandardCharsets.UTF_8);
        }
        return head;
    }

    /** Like {@link #call} for a bulk reply; an error or other reply is an IOException. */
    String bulk(String... args) throws IOException {
        String r = call(args);
        if (r == null || r.startsWith("-") || r.startsWith("+") || r.startsWith(":")) {
            throw new IOException(args[0] + " answered " + r);
        }
        return r;
    }

    /** A configuration parameter's value (CONFIG GET of one exact name); an error or no such parameter: IOException. */
    String config(String name) throws IOException {
        String head = call("CONFIG", "GET", name);
        if (!head.equals("*2") && !head.equals("%1")) {
            throw new IOException("CONFIG GET " + name + " answered " + head);
        }
        String key = bulkAfter(readLine());
        String value = bulkAfter(readLine());
        if (!key.equalsIgnoreCase(name)) {
            throw new IOException("CONFIG GET " + name + " answered " + key);
        }
        return value;
    }

    /** The contents of the bulk string whose header line is {@code head}. */
    private String bulkAfter(String head) throws IOException {
        if (!head.startsWith("$")) {
            throw new IOException("expected a bulk string, got " + head);
        }
        int len = Integer.parseInt(head.substring(1));
        byte[] b = in.readNBytes(len + 2);
        if (b.length < len + 2) {
            throw new IOException("connection closed");
        }
        return new String(b, 0, len, StandardCharsets.UTF_8);
    }

    /** The value of {@code field} in an INFO text, or null. */
    static String infoField(String info, String field) {
        // asked on every probe: String.split of a two-character separator would compile a regex each time
        for (int start = 0; start < info.length(); ) {
            int end = info.indexOf("\r\n", start);
            if (end < 0) {
                end = info.length();
            }
            if (info.startsWith(field, start) && start + field.length() < end && info.charAt(start + field.length()) == ':') {
                return info.substring(start + field.length() + 1, end).trim();
            }
            start = end + 2;
        }
        return null;
    }

    private static byte[] command(String... args) {
        StringBuilder b = new StringBuilder("*").append(args.length).append("\r\n");
        for (String a : args) {
            b.append('$').append(a.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(a).append("\r\n");
        }
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    private String readLine() throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != -1 && c != '\n') {
            if (c != '\r') {
                b.write(c);
            }
        }
        if (c == -1 && b.size() == 0) {
            throw new IOException("connection closed");
        }
        return b.toString(StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
