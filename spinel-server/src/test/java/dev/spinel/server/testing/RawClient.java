package dev.spinel.server.testing;

import javax.net.ssl.SSLSocket;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A minimal RESP client that sends commands as multibulk and returns each reply's exact bytes,
 * so tests can compare replies byte for byte. Not thread-safe.
 */
public final class RawClient implements AutoCloseable {
    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    public RawClient(int port) throws IOException {
        this(new Socket("127.0.0.1", port));
    }

    /** Over a connected socket, e.g. an {@link SSLSocket} from {@link TestCertificates}. */
    public RawClient(Socket socket) throws IOException {
        this.socket = socket;
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(10_000);
        in = new BufferedInputStream(socket.getInputStream());
        out = socket.getOutputStream();
    }

    public void send(List<byte[]> args) throws IOException {
        out.write(encode(args));
        out.flush();
    }

    public void sendRaw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    public static byte[] encode(List<byte[]> args) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(("*" + args.size() + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (byte[] a : args) {
            b.writeBytes(("$" + a.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            b.writeBytes(a);
            b.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        return b.toByteArray();
    }

    /** Sends a command and returns its reply's raw bytes. */
    public byte[] call(List<byte[]> args) throws IOException {
        send(args);
        return readReply();
    }

    public byte[] call(String... args) throws IOException {
        return call(Arrays.stream(args).map(s -> s.getBytes(StandardCharsets.UTF_8)).toList());
    }

    public String callString(String... args) throws IOException {
        return new String(call(args), StandardCharsets.UTF_8);
    }

    /** INFO's numeric fields (of the given sections, or INFO's default ones) by name, for tests that read figures. */
    public Map<String, Long> infoNumbers(String... sections) throws IOException {
        String[] args = new String[sections.length + 1];
        args[0] = "INFO";
        System.arraycopy(sections, 0, args, 1, sections.length);
        Map<String, Long> m = new TreeMap<>();
        for (String line : callString(args).split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && line.substring(colon + 1).matches("\\d+")) {
                m.put(line.substring(0, colon), Long.parseLong(line.substring(colon + 1)));
            }
        }
        return m;
    }

    /** Reads exactly one RESP2/RESP3 reply and returns its bytes; throws at end of stream. */
    public byte[] readReply() throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        readValue(b);
        return b.toByteArray();
    }

    private void readValue(ByteArrayOutputStream b) throws IOException {
        String line = readLine(b);
        char type = line.charAt(0);
        switch (type) {
            case '+', '-', ':', ',', '#', '_', '(' -> { }
            case '$', '=', '!' -> {
                int n = Integer.parseInt(line.substring(1));
                if (n >= 0) {
                    b.writeBytes(in.readNBytes(n + 2));
                }
            }
            case '*', '~', '>' -> {
                int n = Integer.parseInt(line.substring(1));
                for (int i = 0; i < n; i++) {
                    readValue(b);
                }
            }
            case '%', '|' -> {
                int n = Integer.parseInt(line.substring(1));
                for (int i = 0; i < 2 * n; i++) {
                    readValue(b);
                }
            }
            default -> throw new IOException("bad reply line: " + line);
        }
    }

    private String readLine(ByteArrayOutputStream b) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        int prev = -1;
        while (true) {
            int c = in.read();
            if (c < 0) {
                throw new IOException("connection closed");
            }
            b.write(c);
            if (prev == '\r' && c == '\n') {
                byte[] l = line.toByteArray();
                return new String(l, 0, l.length - 1, StandardCharsets.ISO_8859_1);
            }
            line.write(c);
            prev = c;
        }
    }

    /** How long a read waits for the server (10 s unless set): a bound for a hang, longer for a command that runs for seconds. */
    public void setReadTimeout(int millis) throws IOException {
        socket.setSoTimeout(millis);
    }

    /** True if the server closed the connection (reads EOF within 2 s). */
    public boolean isClosedByServer() throws IOException {
        return isClosedByServer(2000);
    }

    /** True if the server closed the connection (reads EOF within {@code timeoutMillis}). */
    public boolean isClosedByServer(int timeoutMillis) throws IOException {
        socket.setSoTimeout(timeoutMillis);
        try {
            return in.read() < 0;
        } catch (SocketTimeoutException e) {
            return false;
        } catch (IOException e) {
            return true;
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
