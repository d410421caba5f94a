package dev.spinel.server.diff;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The tracking table's bookkeeping as redis-server 7.0.15 keeps it: a key read by a client that has since
 * stopped tracking stays in the table until the key changes or a flush drops the table, even while no client
 * tracks (INFO's tracking_total_keys/items), and CLIENT TRACKINGINFO lists a BCAST without PREFIX as the
 * prefix "". A lowered tracking-table-max-keys applies before the next command of any client, a command queued
 * in MULTI too, without waiting for the cron (its invalidations precede the reply, Redis's #11715).
 */
class TrackingTableDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide("enable-debug-command", "yes");

    private static final Pattern FIELD = Pattern.compile("(tracking_[a-z_]+):(\\d+)\r\n");

    @Test
    void theTableIsKeptAsRedisWhenNoClientTracks() throws Exception {
        assertEquals(table(SERVERS.redis().port()), table(SERVERS.spinel().port()));
    }

    @Test
    void aBroadcastWithoutPrefixListsTheEmptyPrefix() throws Exception {
        assertEquals(info(SERVERS.redis().port()), info(SERVERS.spinel().port()));
    }

    @Test
    void aLoweredLimitAppliesBeforeTheNextCommand() throws Exception {
        assertEquals(limit(SERVERS.redis().port()), limit(SERVERS.spinel().port()));
    }

    private static List<String> limit(int port) throws Exception {
        List<String> out = new ArrayList<>();
        try (RawClient tracker = new RawClient(port); RawClient admin = new RawClient(port)) {
            admin.call("FLUSHALL");
            admin.call("DEBUG", "PAUSE-CRON", "1"); // the cron would cut the table too
            try {
                tracker.call("HELLO", "3");
                out.add(text(tracker.call("CLIENT", "TRACKING", "ON")));
                out.add(text(tracker.call("MGET", "1{t}", "2{t}", "3{t}")));
                out.add(text(tracker.call("MULTI")));
                out.add(text(admin.call("CONFIG", "SET", "tracking-table-max-keys", "1")));
                tracker.send(List.of("PING".getBytes(StandardCharsets.US_ASCII)));
                while (true) { // which keys go is the server's choice (Redis: a random walk): how many is not
                    String frame = text(tracker.readReply()).replaceAll("\\d\\{t\\}", "<key>");
                    out.add(frame);
                    if (frame.equals("+QUEUED\r\n")) {
                        break;
                    }
                }
                out.add(fields(admin));
                out.add(text(tracker.call("EXEC")));
            } finally {
                admin.call("CONFIG", "SET", "tracking-table-max-keys", "1000000");
                admin.call("DEBUG", "PAUSE-CRON", "0");
            }
        }
        return out;
    }

    private static List<String> table(int port) throws Exception {
        List<String> out = new ArrayList<>();
        try (RawClient reader = new RawClient(port); RawClient writer = new RawClient(port)) {
            writer.call("FLUSHALL");
            writer.call("MSET", "a", "1", "b", "2", "c", "3");
            reader.call("CLIENT", "TRACKING", "ON");
            reader.call("MGET", "a", "b", "c");
            out.add(fields(writer));
            out.add(text(reader.call("CLIENT", "TRACKING", "OFF")));
            out.add(fields(writer));
            writer.call("SET", "a", "4"); // no client tracks now: the key still leaves the table
            out.add(fields(writer));
            writer.call("EXPIRE", "b", "0");
            out.add(fields(writer));
            writer.call("FLUSHALL"); // and a flush drops what is left
            out.add(fields(writer));
            reader.call("CLIENT", "TRACKING", "ON");
            reader.call("GET", "c");
            writer.call("CLIENT", "TRACKING", "ON");
            writer.call("GET", "c");
            out.add(fields(writer));
        }
        return out;
    }

    private static List<String> info(int port) throws Exception {
        List<String> out = new ArrayList<>();
        try (RawClient c = new RawClient(port)) {
            out.add(text(c.call("CLIENT", "TRACKING", "ON", "BCAST")));
            out.add(text(c.call("CLIENT", "TRACKINGINFO")));
            out.add(text(c.call("CLIENT", "TRACKING", "ON", "BCAST")));
            out.add(text(c.call("CLIENT", "TRACKINGINFO")));
            out.add(text(c.call("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "x")));
            out.add(fields(c));
            out.add(text(c.call("CLIENT", "TRACKING", "OFF")));
            out.add(text(c.call("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "x", "PREFIX", "y")));
            out.add(text(c.call("CLIENT", "TRACKING", "ON", "BCAST")));
            out.add(text(c.call("CLIENT", "TRACKINGINFO")));
            out.add(fields(c));
            out.add(text(c.call("CLIENT", "TRACKING", "OFF")));
        }
        return out;
    }

    /** INFO's tracking_* fields (tracking_clients, tracking_total_keys/items/prefixes). */
    private static String fields(RawClient c) throws Exception {
        Matcher m = FIELD.matcher(text(c.call("INFO")));
        StringBuilder sb = new StringBuilder();
        while (m.find()) {
            sb.append(m.group(1)).append('=').append(m.group(2)).append(' ');
        }
        return sb.toString();
    }

    private static String text(byte[] reply) {
        return new String(reply, StandardCharsets.ISO_8859_1);
    }
}
