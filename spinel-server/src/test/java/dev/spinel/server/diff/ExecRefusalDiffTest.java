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
 * An EXEC that dispatch refuses before it runs (Redis's rejectCommand with EXEC as the command) answers
 * {@code EXECABORT Transaction discarded because of: <reason>} and discards the transaction and the
 * watches, in or out of MULTI, byte for byte as redis-server 7.0.15 does.
 */
class ExecRefusalDiffTest {
    @RegisterExtension
    static final SideBySide SERVERS = new SideBySide();

    @Test
    void refusedExecAnswersAsRedis() throws Exception {
        assertEquals(transcript(SERVERS.redis().port()), transcript(SERVERS.spinel().port()));
    }

    private static List<String> transcript(int port) throws Exception {
        List<String> out = new ArrayList<>();
        try (RawClient a = new RawClient(port); RawClient b = new RawClient(port)) {
            // arity: Redis formats this reason itself, without "ERR "; the transaction is gone after it
            out.add(call(a, "MULTI"));
            out.add(call(a, "SET", "k", "1"));
            out.add(call(a, "EXEC", "extra"));
            out.add(call(a, "EXEC"));
            out.add(call(a, "EXEC", "extra")); // outside MULTI, still an EXECABORT
            // a refused EXEC drops the watches too, even outside MULTI
            out.add(call(a, "WATCH", "w"));
            out.add(call(a, "EXEC", "extra"));
            out.add(call(b, "SET", "w", "changed"));
            out.add(call(a, "MULTI"));
            out.add(call(a, "EXEC"));
            // EXEC while subscribed on RESP2
            out.add(call(a, "WATCH", "w"));
            out.add(call(a, "SUBSCRIBE", "c"));
            out.add(call(a, "EXEC"));
            out.add(call(a, "UNSUBSCRIBE"));
            out.add(call(b, "SET", "w", "again"));
            out.add(call(a, "MULTI"));
            out.add(call(a, "EXEC"));
            // maxmemory reached while a denyoom command is queued
            out.add(call(a, "MULTI"));
            out.add(call(a, "SET", "k", "1"));
            out.add(call(b, "CONFIG", "SET", "maxmemory", "1"));
            out.add(call(a, "EXEC"));
            out.add(call(a, "EXEC"));
            out.add(call(b, "CONFIG", "SET", "maxmemory", "0"));
            // a queued command the user lost the right to run: its error in EXEC's array counts in errorstats
            out.add(call(b, "ACL", "SETUSER", "setless", "on", ">p", "+@all", "~*"));
            out.add(call(a, "AUTH", "setless", "p"));
            out.add(call(a, "MULTI"));
            out.add(call(a, "SET", "k", "1"));
            out.add(call(b, "ACL", "SETUSER", "setless", "-set"));
            out.add(call(a, "EXEC"));
            out.add(call(a, "AUTH", "default", "ignored"));
            // the user lost the right to run EXEC itself
            out.add(call(b, "ACL", "SETUSER", "execless", "on", ">p", "+@all", "-exec", "~*"));
            out.add(call(a, "AUTH", "execless", "p"));
            out.add(call(a, "MULTI"));
            out.add(call(a, "SET", "k", "1"));
            out.add(call(a, "EXEC"));
            out.add(call(a, "EXEC"));
            out.add(call(b, "ACL", "DELUSER", "execless"));
        }
        try (RawClient b = new RawClient(port)) {
            // a new connection while requirepass is set: EXEC is refused as NOAUTH, wrapped
            out.add(call(b, "CONFIG", "SET", "requirepass", "pw"));
            try (RawClient c = new RawClient(port)) {
                out.add(call(c, "EXEC"));
                out.add(call(c, "MULTI"));
                out.add(call(c, "EXEC", "extra"));
            }
            out.add(call(b, "CONFIG", "SET", "requirepass", ""));
            out.add(call(b, "INFO", "errorstats").replaceAll("errorstat_WRONGPASS[^\r]*\r\n", ""));
        }
        return out;
    }

    private static String call(RawClient c, String... args) throws Exception {
        return new String(c.call(args), StandardCharsets.ISO_8859_1);
    }
}
