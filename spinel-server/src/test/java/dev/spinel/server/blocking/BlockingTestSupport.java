package dev.spinel.server.blocking;

import dev.spinel.server.engine.Blocking;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Helpers shared by the blocking-command tests. Stateless. */
final class BlockingTestSupport {
    private BlockingTestSupport() {
    }

    /** Waits (up to 5 s) until exactly {@code n} clients are blocked. */
    static void awaitBlocked(Blocking b, int n) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (b.blockedClients() != n) {
            if (System.nanoTime() > end) {
                throw new AssertionError("blocked_clients stayed " + b.blockedClients() + ", expected " + n);
            }
            Thread.sleep(2);
        }
    }

    /** A RESP bulk string. */
    static String bulk(String s) {
        return "$" + s.length() + "\r\n" + s + "\r\n";
    }

    /** A command as UTF-8 arguments for {@code RawClient.send}. */
    static List<byte[]> cmd(String... a) {
        List<byte[]> l = new ArrayList<>();
        for (String s : a) {
            l.add(s.getBytes(StandardCharsets.UTF_8));
        }
        return l;
    }
}
