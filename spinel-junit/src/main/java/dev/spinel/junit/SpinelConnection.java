package dev.spinel.junit;

import dev.spinel.server.SpinelServer;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * A one-command-at-a-time RESP connection to a test server for the extension's own housekeeping (FLUSHALL), so that
 * the extension needs no Redis client library. Authenticates with {@code requirepass} when the server has one.
 *
 * <p>Thread-safety: none; one thread uses it and closes it.
 */
final class SpinelConnection implements AutoCloseable {
    private final Socket socket;
    private final OutputStream out;
    private final BufferedReader in;

    SpinelConnection(SpinelServer server) throws IOException {
        socket = new Socket("127.0.0.1", server.port());
        out = socket.getOutputStream();
        in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
        String password = server.config().requirepass.value();
        if (!password.isEmpty()) {
            call("AUTH", password);
        }
    }

    /** Sends a command with simple-string or error reply; throws with the error's text. */
    String call(String... args) throws IOException {
        StringBuilder b = new StringBuilder().append('*').append(args.length).append("\r\n");
        for (String a : args) {
            byte[] bytes = a.getBytes(StandardCharsets.UTF_8);
            b.append('$').append(bytes.length).append("\r\n").append(a).append("\r\n");
        }
        out.write(b.toString().getBytes(StandardCharsets.UTF_8));
        out.flush();
        String reply = in.readLine();
        if (reply == null || reply.startsWith("-")) {
            throw new IOException(args[0] + ": " + (reply == null ? "connection closed" : reply.substring(1)));
        }
        return reply;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
