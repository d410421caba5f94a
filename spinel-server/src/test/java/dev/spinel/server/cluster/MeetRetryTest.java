package dev.spinel.server.cluster;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.Await;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A lone node that MEETs another asks it (CLUSTER MEET ... SPINEL-JOIN) to bring it into its Raft group. On a
 * loaded machine that node's join may fail (a commit timing out, its AddNode applied later all the same: seen with
 * six nodes in network namespaces at load 27), leaving the lone node alone for good while the other lists it. As
 * Redis's handshake is retried until it succeeds, the lone node asks again while it is not brought in, and a node
 * listing it does not count as joined while it is alone. The other node here is a fake that answers CLUSTER NODES
 * and never brings anyone in.
 */
class MeetRetryTest {
    private static final int PORT = 22661;

    private SpinelServer node;
    private ServerSocket fake;

    @AfterEach
    void tearDown() throws IOException {
        if (fake != null) {
            fake.close();
        }
        ClusterNodes.closeAll(new SpinelServer[]{node});
    }

    @Test
    @Timeout(60)
    void aLoneNodeAsksAgainToBeBroughtIn() throws Exception {
        AtomicInteger joins = startNodeAndFake(false);
        Await.waitFor(() -> joins.get() >= 2, "a second join request");
    }

    @Test
    @Timeout(60)
    void aLoneNodeListedByTheOtherStillAsksToBeBroughtIn() throws Exception {
        AtomicInteger joins = startNodeAndFake(true);
        Await.waitFor(() -> joins.get() >= 1, "a join request although the other node lists this one");
    }

    /** Starts the Spinel node and a fake peer, and makes the node MEET it; counts the join requests it receives. */
    private AtomicInteger startNodeAndFake(boolean listsTheNode) throws Exception {
        node = SpinelServer.start(ServerConfig.defaults().with("port", Integer.toString(PORT))
                .with("cluster-enabled", "yes").with("dir", Files.createTempDirectory("spinel-meet-retry").toString()));
        String myId;
        try (RawClient c = new RawClient(PORT)) {
            String bulk = c.callString("CLUSTER", "MYID");
            myId = bulk.substring(bulk.indexOf('\n') + 1).trim();
        }
        fake = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        int fakePort = fake.getLocalPort();
        // the smallest id there is: the fake's group comes first, so the node asks to be brought in
        String nodes = "0".repeat(40) + " 127.0.0.1:" + fakePort + "@" + (fakePort + 1) + " myself,master - 0 0 1 connected\n"
                + (listsTheNode ? myId + " 127.0.0.1:" + PORT + "@" + (PORT + 10000) + " master - 0 0 0 connected\n" : "");
        AtomicInteger joins = new AtomicInteger();
        Thread.ofVirtual().start(() -> {
            while (!fake.isClosed()) {
                try {
                    Socket s = fake.accept();
                    Thread.ofVirtual().start(() -> serve(s, nodes, joins));
                } catch (IOException closed) {
                    return;
                }
            }
        });
        try (RawClient c = new RawClient(PORT)) {
            assertEquals("+OK\r\n", c.callString("CLUSTER", "MEET", "127.0.0.1", Integer.toString(fakePort)));
        }
        return joins;
    }

    private static void serve(Socket s, String nodes, AtomicInteger joins) {
        try (s; InputStream in = new BufferedInputStream(s.getInputStream()); OutputStream out = s.getOutputStream()) {
            while (true) {
                List<String> cmd = readCommand(in);
                if (cmd == null) {
                    return;
                }
                String reply;
                if (cmd.size() == 2 && cmd.get(1).equalsIgnoreCase("NODES")) {
                    byte[] b = nodes.getBytes(StandardCharsets.US_ASCII);
                    reply = "$" + b.length + "\r\n" + nodes + "\r\n";
                } else if (cmd.size() == 6 && cmd.get(5).equals(ClusterMode.GROUP)) {
                    reply = "$10\r\nfake-group\r\n";
                } else if (cmd.size() == 6 && cmd.get(5).equals(ClusterMode.JOIN)) {
                    joins.incrementAndGet();
                    reply = "+OK\r\n";
                } else {
                    reply = "+OK\r\n";
                }
                out.write(reply.getBytes(StandardCharsets.US_ASCII));
                out.flush();
            }
        } catch (IOException gone) {
            // the node closed its call
        }
    }

    private static List<String> readCommand(InputStream in) throws IOException {
        String head = line(in);
        if (head == null) {
            return null;
        }
        int n = Integer.parseInt(head.substring(1));
        List<String> args = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int len = Integer.parseInt(line(in).substring(1));
            byte[] b = in.readNBytes(len + 2);
            args.add(new String(b, 0, len, StandardCharsets.US_ASCII));
        }
        return args;
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        int c;
        while ((c = in.read()) != '\n') {
            if (c < 0) {
                return null;
            }
            if (c != '\r') {
                sb.append((char) c);
            }
        }
        return sb.toString();
    }
}
