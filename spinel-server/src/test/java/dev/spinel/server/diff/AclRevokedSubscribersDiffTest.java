package dev.spinel.server.diff;

import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.SideBySide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * ACL SETUSER disconnects the user's subscribers whose channels or patterns the new rules no longer allow, as
 * redis-server 7.0.15 does (ACLKillPubsubClientsIfNeeded): taking allchannels away counts as revoking, even
 * when the old rules listed no channel (Redis's "Subscribers are killed when revoked of allchannels
 * permission"); a subscriber whose pattern is still listed literally, or whose channel still matches a listed
 * pattern, stays.
 */
class AclRevokedSubscribersDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    @Test
    void subscribersOfRevokedChannelsDisconnectedAsRedis() throws Exception {
        assertEquals(transcript(SERVERS.redis().port()), transcript(SERVERS.spinel().port()));
    }

    private static List<String> transcript(int port) throws Exception {
        List<String> out = new ArrayList<>();
        String[][] cases = {
            // {rules before, subscribe command, channel, rules after}
            {"allchannels", "PSUBSCRIBE", "foo", "resetchannels"},
            {"allchannels", "SUBSCRIBE", "foo", "resetchannels"},
            {"allchannels", "PSUBSCRIBE", "foo", "resetchannels &foo"},
            {"allchannels", "SUBSCRIBE", "foo", "resetchannels &f*"},
            {"allchannels", "SUBSCRIBE", "foo", "resetchannels &bar"},
            {"resetchannels &foo", "SUBSCRIBE", "foo", "allchannels"},
            {"resetchannels &foo &bar", "SUBSCRIBE", "foo", "resetchannels &foo"},
            {"resetchannels &foo &bar", "SUBSCRIBE", "bar", "resetchannels &foo"},
        };
        try (RawClient admin = new RawClient(port)) {
            try {
                for (String[] c : cases) {
                    admin.call("ACL", "SETUSER", "psuser", "reset", "on", ">pspass", "+@all", "~*");
                    call(admin, "ACL SETUSER psuser " + c[0]);
                    try (RawClient sub = new RawClient(port)) {
                        out.add(text(sub.call("AUTH", "psuser", "pspass")));
                        out.add(text(sub.call(c[1], c[2])));
                        out.add(text(call(admin, "ACL SETUSER psuser " + c[3])));
                        boolean closed = sub.isClosedByServer(300);
                        out.add(String.join(" ", c) + " -> " + (closed ? "disconnected" : "kept"));
                    }
                }
            } finally {
                admin.call("ACL", "DELUSER", "psuser");
            }
        }
        return out;
    }

    private static byte[] call(RawClient c, String line) throws Exception {
        return c.call(line.split(" "));
    }

    private static String text(byte[] reply) {
        return new String(reply, StandardCharsets.ISO_8859_1);
    }
}
