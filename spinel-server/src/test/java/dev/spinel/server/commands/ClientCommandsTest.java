package dev.spinel.server.commands;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.net.Socket;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** CLIENT LIST/INFO fields and CLIENT KILL filters, where values differ per connection. */
class ClientCommandsTest {
    private static SpinelServer server;

    @BeforeAll
    static void start() {
        server = SpinelServer.startEphemeral();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    /** Parses the text of a CLIENT INFO/LIST bulk reply (RESP2) into lines of ordered fields. */
    static List<Map<String, String>> parse(String reply) {
        String body = reply.substring(reply.indexOf("\r\n") + 2, reply.length() - 2);
        List<Map<String, String>> out = new ArrayList<>();
        for (String line : body.split("\n")) {
            if (line.isEmpty()) {
                continue;
            }
            Map<String, String> f = new LinkedHashMap<>();
            for (String kv : line.split(" ")) {
                int eq = kv.indexOf('=');
                f.put(kv.substring(0, eq), kv.substring(eq + 1));
            }
            out.add(f);
        }
        return out;
    }

    static long id(RawClient c) throws Exception {
        String r = c.callString("CLIENT", "ID");
        return Long.parseLong(r.substring(1, r.length() - 2));
    }

    @Test
    void clientInfoHasRedisFieldsInRedisOrder() throws Exception {
        List<String> redisFields;
        try (RedisServerProcess redis = RedisServerProcess.start(); RawClient r = new RawClient(redis.port())) {
            redisFields = new ArrayList<>(parse(r.callString("CLIENT", "INFO")).getFirst().keySet());
        }
        try (RawClient c = new RawClient(server.port())) {
            assertEquals("+OK\r\n", c.callString("CLIENT", "SETNAME", "me"));
            assertEquals("+OK\r\n", c.callString("SELECT", "5"));
            Map<String, String> f = parse(c.callString("CLIENT", "INFO")).getFirst();
            assertEquals(redisFields, new ArrayList<>(f.keySet()));
            assertEquals(String.valueOf(id(c)), f.get("id"));
            assertEquals("me", f.get("name"));
            assertEquals("5", f.get("db"));
            assertEquals("N", f.get("flags"));
            assertEquals("client|info", f.get("cmd"));
            assertEquals("2", f.get("resp"));
            assertEquals("default", f.get("user"));
            assertEquals("-1", f.get("multi"));
            assertEquals("127.0.0.1:" + server.port(), f.get("laddr"));
            assertTrue(f.get("addr").startsWith("127.0.0.1:"));
            assertEquals("0", f.get("age"));
            assertTrue(Integer.parseInt(f.get("fd")) > 0);
            assertEquals("+OK\r\n", c.callString("CLIENT", "NO-EVICT", "on"));
            assertTrue(c.callString("HELLO", "3").startsWith("%7"));
            String info3 = c.callString("CLIENT", "INFO");
            assertTrue(info3.startsWith("="), info3); // verbatim string in RESP3
            assertTrue(info3.contains("txt:id=") && info3.contains(" flags=e ") && info3.contains(" resp=3\n"), info3);
        }
    }

    @Test
    void clientListShowsEveryClientAndFiltersById() throws Exception {
        try (RawClient a = new RawClient(server.port()); RawClient b = new RawClient(server.port());
             Socket raw = new Socket("127.0.0.1", server.port())) {
            long ida = id(a);
            long idb = id(b);
            assertEquals("+OK\r\n", b.callString("CLIENT", "SETNAME", "bee"));
            Thread.sleep(1100);
            List<Map<String, String>> all = parse(a.callString("CLIENT", "LIST"));
            Map<Long, Map<String, String>> byId = new LinkedHashMap<>();
            all.forEach(m -> byId.put(Long.parseLong(m.get("id")), m));
            assertTrue(byId.containsKey(ida) && byId.containsKey(idb));
            assertEquals("bee", byId.get(idb).get("name"));
            assertEquals("client|setname", byId.get(idb).get("cmd"));
            assertEquals("client|list", byId.get(ida).get("cmd"));
            assertTrue(Integer.parseInt(byId.get(idb).get("idle")) >= 1);
            assertTrue(Integer.parseInt(byId.get(idb).get("age")) >= 1);
            // The connection that never sent a command shows cmd=NULL.
            assertTrue(all.stream().anyMatch(m -> m.get("cmd").equals("NULL")));
            // ids ascending, as Redis lists clients in connection order.
            List<Long> ids = all.stream().map(m -> Long.parseLong(m.get("id"))).toList();
            assertEquals(ids.stream().sorted().toList(), ids);

            List<Map<String, String>> two = parse(a.callString("CLIENT", "LIST", "ID", String.valueOf(idb), "999999", String.valueOf(ida)));
            assertEquals(List.of(String.valueOf(idb), String.valueOf(ida)), two.stream().map(m -> m.get("id")).toList());
            assertEquals(all.size(), parse(a.callString("CLIENT", "LIST", "TYPE", "normal")).size());
            assertEquals("$0\r\n\r\n", a.callString("CLIENT", "LIST", "TYPE", "pubsub"));
        }
    }

    @Test
    void cmdIsTheLastCommandEvenWhenRejectedAndNullWhenUnknown() throws Exception {
        try (RawClient a = new RawClient(server.port()); RawClient b = new RawClient(server.port())) {
            String idb = String.valueOf(id(b));
            String[][] steps = {{"GET"}, {"get"}, {"NOSUCH", "x"}, {"NULL"}, {"CLIENT", "ID", "x"}, {"client|id"},
                    {"CLIENT", "foo"}, {"NULL"}, {"SET", "a", "b"}, {"set"}};
            for (int i = 0; i < steps.length; i += 2) {
                b.call(steps[i]);
                Map<String, String> f = parse(a.callString("CLIENT", "LIST", "ID", idb)).getFirst();
                assertEquals(steps[i + 1][0], f.get("cmd"), String.join(" ", steps[i]));
            }
        }
    }

    @Test
    void killFilters() throws Exception {
        try (RawClient a = new RawClient(server.port()); RawClient b = new RawClient(server.port());
             RawClient c = new RawClient(server.port()); RawClient d = new RawClient(server.port())) {
            long idb = id(b);
            String addrC = parse(c.callString("CLIENT", "INFO")).getFirst().get("addr");
            assertEquals("+PONG\r\n", d.callString("PING"));

            assertEquals(":1\r\n", a.callString("CLIENT", "KILL", "ID", String.valueOf(idb)));
            assertEquals("$0\r\n\r\n", a.callString("CLIENT", "LIST", "ID", String.valueOf(idb))); // gone at once
            assertTrue(b.isClosedByServer());
            assertEquals(":0\r\n", a.callString("CLIENT", "KILL", "ID", String.valueOf(idb)));

            assertEquals(":1\r\n", a.callString("CLIENT", "KILL", "ADDR", addrC, "TYPE", "normal", "USER", "default"));
            assertTrue(c.isClosedByServer());
            assertEquals("-ERR No such client\r\n", a.callString("CLIENT", "KILL", addrC));

            // ID and ADDR must both match.
            String addrD = parse(d.callString("CLIENT", "INFO")).getFirst().get("addr");
            assertEquals(":0\r\n", a.callString("CLIENT", "KILL", "ADDR", addrD, "ID", String.valueOf(id(a))));
            assertEquals("+PONG\r\n", d.callString("PING"));

            // The old form kills by address and answers OK.
            assertEquals("+OK\r\n", a.callString("CLIENT", "KILL", addrD));
            assertTrue(d.isClosedByServer());

            // SKIPME yes (the default) spares the caller; LADDR matches every client of this port.
            assertEquals(":0\r\n", a.callString("CLIENT", "KILL", "ID", String.valueOf(id(a))));
            assertEquals("+PONG\r\n", a.callString("PING"));
        }
    }

    @Test
    void killingItselfRepliesThenCloses() throws Exception {
        try (RawClient a = new RawClient(server.port()); RawClient b = new RawClient(server.port())) {
            String self = String.valueOf(id(a));
            assertEquals(":1\r\n", a.callString("CLIENT", "KILL", "ID", self, "SKIPME", "no"));
            assertTrue(a.isClosedByServer());
            String addrB = parse(b.callString("CLIENT", "INFO")).getFirst().get("addr");
            assertEquals("+OK\r\n", b.callString("CLIENT", "KILL", addrB));
            assertTrue(b.isClosedByServer());
        }
    }

    @Test
    void killByLocalAddressAcrossConnections() throws Exception {
        List<RawClient> others = new ArrayList<>();
        try (RawClient a = new RawClient(server.port())) {
            for (int i = 0; i < 6; i++) { // spread over the event loops
                RawClient o = new RawClient(server.port());
                assertEquals("+PONG\r\n", o.callString("PING"));
                others.add(o);
            }
            String r = a.callString("CLIENT", "KILL", "LADDR", "127.0.0.1:" + server.port());
            assertTrue(Long.parseLong(r.substring(1, r.length() - 2)) >= 6, r);
            for (RawClient o : others) {
                assertTrue(o.isClosedByServer());
            }
            assertEquals("+PONG\r\n", a.callString("PING"));
            assertFalse(a.isClosedByServer());
        } finally {
            for (RawClient o : others) {
                o.close();
            }
        }
    }
}
