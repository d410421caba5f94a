package dev.spinel.server.replication;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static dev.spinel.server.testing.Await.waitFor;

/**
 * Redis 7.0's shutdown wait for replicas (integration/shutdown.tcl), a redis-server master and a Spinel master each
 * with a redis-server replica stopped by SIGSTOP: SHUTDOWN blocks (two of them), INFO shows
 * {@code shutdown_in_milliseconds}, client writes are paused, SHUTDOWN ABORT answers +OK and both blocked clients get
 * the same error, writes resume; then a SHUTDOWN waits until the continued replica has the last write, and the master
 * stops. Replies compared byte for byte.
 */
class ShutdownWaitTest {
    private static List<String> scenario(int masterPort, RedisServerProcess replica) throws Exception {
        List<String> seen = new ArrayList<>();
        try (RawClient m = new RawClient(masterPort); RawClient r = new RawClient(replica.port())) {
            r.callString("REPLICAOF", "127.0.0.1", Integer.toString(masterPort));
            m.callString("SET", "k", "1");
            waitFor(() -> r.callString("GET", "k").equals("$1\r\n1\r\n"), "the replica has k");
            signal("STOP", replica);
            try {
                seen.add(m.callString("INCR", "k"));
                try (RawClient rd1 = new RawClient(masterPort); RawClient rd2 = new RawClient(masterPort);
                     RawClient writer = new RawClient(masterPort)) {
                    rd1.send(args("SHUTDOWN"));
                    rd2.send(args("SHUTDOWN"));
                    waitFor(() -> m.callString("INFO", "clients").contains("blocked_clients:2"), "two blocked SHUTDOWNs");
                    String clients = m.callString("INFO", "clients"); // the replica is not counted as a client
                    seen.add(clients.substring(clients.indexOf("connected_clients:"), clients.indexOf("\r\n", clients.indexOf("connected_clients:"))));
                    String info = m.callString("INFO", "server");
                    assertTrue(info.contains("shutdown_in_milliseconds:"), info);
                    writer.send(args("SET", "paused", "1")); // held by the pause until the abort
                    seen.add(m.callString("SHUTDOWN", "ABORT"));
                    seen.add(new String(rd1.readReply(), StandardCharsets.UTF_8));
                    seen.add(new String(rd2.readReply(), StandardCharsets.UTF_8));
                    seen.add(new String(writer.readReply(), StandardCharsets.UTF_8));
                    seen.add(String.valueOf(m.callString("INFO", "server").contains("shutdown_in_milliseconds")));
                    seen.add(m.callString("SHUTDOWN", "ABORT"));
                }
                seen.add(m.callString("INCR", "k"));
                try (RawClient rd = new RawClient(masterPort)) {
                    rd.send(args("SHUTDOWN", "NOSAVE"));
                    waitFor(() -> m.callString("INFO", "clients").contains("blocked_clients:1"), "a blocked SHUTDOWN");
                    signal("CONT", replica);
                    seen.add(String.valueOf(rd.isClosedByServer(20_000))); // the master stopped once the replica caught up
                }
                seen.add(r.callString("GET", "k"));
            } finally {
                signal("CONT", replica);
            }
        }
        return seen;
    }

    @Test
    void shutdownWaitsForTheReplicasAndCanBeAborted() throws Exception {
        List<String> expected;
        try (RedisServerProcess master = RedisServerProcess.start("--repl-diskless-sync-delay", "0"); RedisServerProcess replica = RedisServerProcess.start()) {
            expected = scenario(master.port(), replica);
        }
        assertEquals("-ERR Errors trying to SHUTDOWN. Check logs.\r\n", expected.get(3));
        try (SpinelServer master = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("repl-diskless-sync-delay", "0"));
             RedisServerProcess replica = RedisServerProcess.start()) {
            assertEquals(expected, scenario(master.port(), replica));
            assertTrue(master.isClosed());
        }
    }

    private static void signal(String sig, RedisServerProcess p) throws Exception {
        new ProcessBuilder("kill", "-" + sig, Long.toString(p.pid())).inheritIO().start().waitFor();
    }

    private static List<byte[]> args(String... a) {
        List<byte[]> l = new ArrayList<>();
        for (String s : a) {
            l.add(s.getBytes(StandardCharsets.UTF_8));
        }
        return l;
    }
}
