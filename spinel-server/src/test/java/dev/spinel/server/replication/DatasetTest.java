package dev.spinel.server.replication;

import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@link Dataset} against a scripted server whose key expires between TYPE and GET, as a short-TTL key of the
 * workload did once under load (ReplicationSyncTest then saw {@code +string null :-2} on one side only).
 */
class DatasetTest {
    @Test
    void aKeyThatExpiresWhileItIsReadIsAbsent() throws Exception {
        try (ServerSocket listener = new ServerSocket(0)) {
            CompletableFuture<Void> served = CompletableFuture.runAsync(() -> serve(listener));
            try (RawClient c = new RawClient(listener.getLocalPort())) {
                assertEquals(Map.of("0:s:kept", "+string [v] :-1"), Dataset.of(c));
            }
            served.join();
        }
    }

    /** One connection: database 0 lists a kept key and one that is gone by the time of its GET. */
    private static void serve(ServerSocket listener) {
        try (Socket s = listener.accept()) {
            BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.UTF_8));
            OutputStream out = s.getOutputStream();
            String db = "0";
            List<String> cmd;
            while ((cmd = command(in)) != null) {
                String reply = switch (cmd.getFirst()) {
                    case "SELECT" -> {
                        db = cmd.get(1);
                        yield "+OK\r\n";
                    }
                    case "KEYS" -> db.equals("0") ? "*2\r\n$6\r\ns:kept\r\n$7\r\ns:short\r\n" : "*0\r\n";
                    case "TYPE" -> "+string\r\n";
                    case "GET" -> cmd.get(1).equals("s:kept") ? "$1\r\nv\r\n" : "$-1\r\n";
                    case "PEXPIRETIME" -> cmd.get(1).equals("s:kept") ? ":-1\r\n" : ":-2\r\n";
                    default -> "-ERR unexpected\r\n";
                };
                out.write(reply.getBytes(StandardCharsets.UTF_8));
                out.flush();
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** A RESP array of bulk strings, or null at the end of the stream. */
    private static List<String> command(BufferedReader in) throws Exception {
        String head = in.readLine();
        if (head == null) {
            return null;
        }
        int n = Integer.parseInt(head.substring(1));
        List<String> args = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            in.readLine(); // $len
            args.add(in.readLine());
        }
        return args;
    }
}
