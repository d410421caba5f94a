package dev.spinel.server.replication;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/** What the tests' fake masters read from a replica: its RESP commands and lines (PING, REPLCONF, PSYNC...). */
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
}
