package dev.spinel.server.scripting;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A busy script no longer silences its own event loop: with one event loop every client shares the
 * script's loop, and each gets what redis-server 7.0.15 answers, byte for byte (the same scenario runs
 * against both): a request sent before busy-reply-threshold waits and then gets BUSY, requests after it
 * get BUSY, SHUTDOWN without NOSAVE is refused, MULTI/WATCH are allowed, SCRIPT KILL and FUNCTION KILL
 * work, the caller's pipelined request is answered after its script's error, and SHUTDOWN NOSAVE stops
 * the server. (Before, the loop ran the script and none of these clients got anything.)
 */
class BusyScriptSameLoopTest {
    private static final String ENDLESS = "local i = 0 while true do i = i + 1 end";

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    private static List<byte[]> cmd(String... args) {
        List<byte[]> out = new ArrayList<>();
        for (String a : args) {
            out.add(a.getBytes(StandardCharsets.UTF_8));
        }
        return out;
    }

    /** The scenario; returns every reply in order. Ends with SHUTDOWN NOSAVE (the server exits). */
    private static List<String> scenario(int port) throws Exception {
        List<String> replies = new ArrayList<>();
        try (RawClient runner = new RawClient(port); RawClient early = new RawClient(port); RawClient other = new RawClient(port)) {
            for (RawClient c : List.of(runner, early, other)) {
                c.setReadTimeout(30_000); // a bound for a hang: a clean-clone CI run beside other load took over 10 s once
            }
            replies.add(other.callString("SET", "k", "v"));
            // the script's caller pipelines a request behind it: answered after the script's end
            List<byte[]> pipeline = new ArrayList<>();
            pipeline.add(RawClient.encode(cmd("EVAL", ENDLESS, "0")));
            pipeline.add(RawClient.encode(cmd("GET", "k")));
            runner.sendRaw(concat(pipeline));
            // sent once the script runs (usually before the threshold: it waits, then gets BUSY)
            replies.add(untilBusy(early, "GET", "k"));
            replies.add(other.callString("PING"));
            replies.add(other.callString("SHUTDOWN"));
            replies.add(other.callString("SHUTDOWN", "SAVE"));
            replies.add(other.callString("SHUTDOWN", "NOW"));
            replies.add(other.callString("SHUTDOWN", "FORCE"));
            replies.add(other.callString("CLIENT", "ID"));
            replies.add(other.callString("WATCH", "k"));
            replies.add(other.callString("MULTI"));
            replies.add(other.callString("INCR", "k"));
            replies.add(other.callString("EXEC"));
            replies.add(other.callString("FUNCTION", "KILL"));
            replies.add(other.callString("SCRIPT", "KILL"));
            replies.add(text(runner.readReply()));
            replies.add(text(runner.readReply()));
            replies.add(other.callString("SCRIPT", "KILL"));

            replies.add(other.callString("FUNCTION", "LOAD", "#!lua name=loop\nredis.register_function('spin', function() " + ENDLESS + " end)"));
            runner.send(cmd("FCALL", "spin", "0"));
            replies.add(untilBusy(early, "PING"));
            replies.add(early.callString("SCRIPT", "KILL"));
            replies.add(early.callString("FUNCTION", "KILL"));
            replies.add(text(runner.readReply()));
            replies.add(early.callString("GET", "k"));

            runner.send(cmd("EVAL", ENDLESS, "0"));
            replies.add(untilBusy(other, "PING"));
            other.send(cmd("SHUTDOWN", "NOSAVE")); // no reply: the server exits
            // a server stopping while a script runs on the loop: generous on a loaded machine (a hang still fails)
            replies.add("closed=" + other.isClosedByServer(10_000));
            replies.add("closed=" + runner.isClosedByServer(10_000));
        }
        return replies;
    }

    /**
     * Sends the request until it is answered BUSY: the answers before it (the script not started yet; how many
     * depends on timing) are the idle answer and not kept. Waits for a condition where a sleep raced the script's start.
     */
    private static String untilBusy(RawClient c, String... request) throws Exception {
        String idle = null;
        while (true) {
            String reply = c.callString(request);
            if (reply.startsWith("-BUSY")) {
                return reply;
            }
            assertTrue(idle == null || idle.equals(reply), "neither BUSY nor the idle answer: " + reply);
            idle = reply;
        }
    }

    private static byte[] concat(List<byte[]> parts) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            b.writeBytes(p);
        }
        return b.toByteArray();
    }

    @Test
    @Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // fails, not hangs, if the server cannot close
    void everyClientOfTheScriptsLoopIsAnsweredAsByRedis() throws Exception {
        List<String> redis;
        try (RedisServerProcess r = RedisServerProcess.start("--busy-reply-threshold", "300")) {
            redis = scenario(r.port());
        }
        List<String> spinel;
        SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0")
                .with("event-loop-threads", "1").with("busy-reply-threshold", "300"));
        try {
            spinel = scenario(server.port());
            // SHUTDOWN NOSAVE from the script's own loop stopped the server
            CompletableFuture.runAsync(() -> {
                try {
                    server.awaitClose();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }).get(10, TimeUnit.SECONDS);
            assertTrue(server.isClosed());
        } finally {
            server.close();
        }
        assertTrue(redis.get(1).startsWith("-BUSY"), redis.toString());
        assertEquals(String.join("\n", redis), String.join("\n", spinel));
    }
}
