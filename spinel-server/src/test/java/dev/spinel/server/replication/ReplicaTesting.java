package dev.spinel.server.replication;

import dev.spinel.server.testing.RawClient;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.spinel.server.testing.Await.waitFor;

/** What the replication tests that read INFO and CLIENT LIST figures share. Stateless; any thread. */
final class ReplicaTesting {
    private static final Pattern FIELD = Pattern.compile("([a-z_-]+)[:=](\\d+)");

    private ReplicaTesting() {
    }

    /** The first numeric {@code name:value} or {@code name=value} of an INFO or CLIENT LIST text. */
    static long field(String text, String name) {
        Matcher m = FIELD.matcher(text);
        while (m.find()) {
            if (m.group(1).equals(name)) {
                return Long.parseLong(m.group(2));
            }
        }
        throw new AssertionError(name + " not in " + text);
    }

    /** Makes {@code replica} a replica of the server on {@code upstreamPort} and waits until both see the link up. */
    static void attach(RawClient upstream, RawClient replica, int upstreamPort) throws Exception {
        replica.callString("REPLICAOF", "127.0.0.1", Integer.toString(upstreamPort));
        waitFor(() -> replica.callString("INFO", "replication").contains("master_link_status:up")
                && upstream.callString("INFO", "replication").contains("state=online"), "the replica online");
    }
}
