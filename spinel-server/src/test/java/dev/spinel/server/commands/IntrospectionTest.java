package dev.spinel.server.commands;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** SLOWLOG entries, latency samples and MONITOR lines in Redis's formats. */
class IntrospectionTest {

    @Test
    void slowlogRecordsCommandsOverTheThresholdWithTruncatedArguments() throws Exception {
        try (SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0")
                .with("slowlog-log-slower-than", "0").with("slowlog-max-len", "3"));
             RawClient c = new RawClient(server.port())) {
            c.call("SLOWLOG", "RESET");
            c.call("SET", "k", "x".repeat(200));
            String get = c.callString("SLOWLOG", "GET", "1");
            assertTrue(get.startsWith("*1\r\n*6\r\n:"), get);
            assertTrue(get.contains("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$" + (128 + " more bytes)".length() + "... (72".length())
                    + "\r\n" + "x".repeat(128) + "... (72 more bytes)\r\n"), get);
            for (int i = 0; i < 5; i++) {
                c.call("PING");
            }
            assertEquals(":3\r\n", c.callString("SLOWLOG", "LEN"));
        }
    }

    @Test
    void latencyMonitorRecordsSlowEvents() throws Exception {
        try (SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0")
                .with("latency-monitor-threshold", "1"));
             RawClient c = new RawClient(server.port())) {
            server.engine().latency().record("command", 5);
            String latest = c.callString("LATENCY", "LATEST");
            assertTrue(latest.startsWith("*1\r\n*4\r\n$7\r\ncommand\r\n:"), latest);
            assertTrue(latest.endsWith(":5\r\n:5\r\n"), latest);
            assertTrue(c.callString("LATENCY", "HISTORY", "command").startsWith("*1\r\n*2\r\n:"));
            assertEquals(":1\r\n", c.callString("LATENCY", "RESET"));
        }
    }

    @Test
    void monitorShowsOtherClientsCommandsAsRedisFormatsThem() throws Exception {
        try (SpinelServer server = SpinelServer.startEphemeral();
             RawClient monitor = new RawClient(server.port());
             RawClient c = new RawClient(server.port())) {
            assertEquals("+OK\r\n", monitor.callString("MONITOR"));
            c.call("SET", "k\u0001\"", "a\nb\\");
            c.call("SELECT", "3");
            String line = new String(monitor.readReply(), StandardCharsets.UTF_8);
            assertTrue(line.matches("\\+\\d+\\.\\d{6} \\[0 127\\.0\\.0\\.1:\\d+] \"SET\" \"k\\\\x01\\\\\"\" \"a\\\\nb\\\\\\\\\"\r\n"), line);
            line = new String(monitor.readReply(), StandardCharsets.UTF_8);
            assertTrue(line.matches("\\+\\d+\\.\\d{6} \\[3 127\\.0\\.0\\.1:\\d+] \"SELECT\" \"3\"\r\n"), line);
        }
    }
}
