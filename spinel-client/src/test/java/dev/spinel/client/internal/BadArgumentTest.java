package dev.spinel.client.internal;

import dev.spinel.client.ClientOptions;
import dev.spinel.client.RedisUri;
import dev.spinel.protocol.RespValue;
import dev.spinel.server.SpinelServer;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A command built with an argument the encoder cannot write fails on its own, with a clear exception,
 * and the commands written in the same batch before and after it are untouched (before, the encoder's
 * exception escaped the flush: the command never completed and the batch's bytes were left half-written).
 * An {@code Integer} argument is written as the number it is.
 */
class BadArgumentTest {
    @Test
    void anUnwritableArgumentFailsItsCommandOnly() throws Exception {
        Transport transport = new Transport(1);
        try (SpinelServer server = SpinelServer.startEphemeral()) {
            Connection c = Connection.open(transport, RedisUri.parse("redis://127.0.0.1:" + server.port()), ClientOptions.defaults(), null)
                    .get(10, TimeUnit.SECONDS);
            Command<RespValue> before = c.submit(new Command<>(Replies.RAW, "SET", "k", Integer.valueOf(42)));
            Command<RespValue> bad = c.submit(new Command<>(Replies.RAW, "SET", "k", Boolean.TRUE));
            Command<RespValue> after = c.submit(new Command<>(Replies.RAW, "GET", "k"));
            assertEquals(RespDecoder.OK, before.get(10, TimeUnit.SECONDS));
            ExecutionException e = assertThrows(ExecutionException.class, () -> bad.get(10, TimeUnit.SECONDS));
            assertInstanceOf(IllegalArgumentException.class, e.getCause());
            RespValue v = after.get(10, TimeUnit.SECONDS);
            assertEquals("42", new String(((RespValue.BulkString) v).value(), StandardCharsets.UTF_8));
            assertEquals(0, c.outstanding());
            c.close().get(5, TimeUnit.SECONDS);
        } finally {
            transport.shutdown();
        }
    }
}
