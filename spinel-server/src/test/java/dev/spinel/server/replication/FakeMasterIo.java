package dev.spinel.server.replication;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** The tests' fake masters: a replica's RESP commands and lines as strings, and the master's side of its handshake. Stateless. */
final class FakeMasterIo {
    private FakeMasterIo() {
    }

    /** One command the replica sent, as strings. */
    static List<String> command(InputStream in) throws IOException {
        int n = Integer.parseInt(line(in).substring(1));
        String[] args = new String[n];
        for (int i = 0; i < n; i++) {
            int len = Integer.parseInt(line(in).substring(1));
            args[i] = new String(in.readNBytes(len), StandardCharsets.UTF_8);
            line(in);
        }
        return List.of(args);
    }

    /** One CRLF-terminated line without its CRLF; IOException when the replica closed. */
    static String line(InputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != '\n') {
            if (c < 0) {
                throw new IOException("closed");
            }
            if (c != '\r') {
                b.write(c);
            }
        }
        return b.toString(StandardCharsets.UTF_8);
    }

    /** Plays a master's side of a replica's handshake up to +FULLRESYNC (replid 1111..., offset 0); returns the stream to go on with. */
    static OutputStream handshake(Socket link) throws IOException {
        link.setSoTimeout(10_000);
        InputStream in = new BufferedInputStream(link.getInputStream());
        OutputStream out = link.getOutputStream();
        while (true) {
            List<String> cmd = command(in);
            String name = cmd.getFirst().toUpperCase();
            if (name.equals("PING")) {
                out.write("+PONG\r\n".getBytes(StandardCharsets.US_ASCII));
            } else if (name.equals("PSYNC") || name.equals("SYNC")) {
                out.write("+FULLRESYNC 1111111111111111111111111111111111111111 0\r\n".getBytes(StandardCharsets.US_ASCII));
                return out;
            } else {
                out.write("+OK\r\n".getBytes(StandardCharsets.US_ASCII));
            }
            out.flush();
        }
    }
}
