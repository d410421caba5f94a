package dev.spinel.junit;

import dev.spinel.server.SpinelServer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import redis.clients.jedis.Jedis;

import java.net.URI;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** One server for the class, injected as server, port and URI; FLUSHALL between tests; no gRPC module needed. */
@SpinelTest
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SpinelTestPerClassTest {
    static SpinelServer first;

    @BeforeAll
    static void serverBeforeAll(SpinelServer server) {
        first = server;
    }

    @Test
    @Order(1)
    void writes(@SpinelPort int port, SpinelServer server) {
        assertSame(first, server, "one server per class");
        assertEquals(server.port(), port);
        try (Jedis j = new Jedis("127.0.0.1", port)) {
            j.set("left-over", "1");
            assertEquals("1", j.get("left-over"));
        }
    }

    @Test
    @Order(2)
    void seesAnEmptyServer(URI uri, SpinelServer server) {
        assertSame(first, server);
        assertEquals(URI.create("redis://127.0.0.1:" + server.port()), uri);
        try (Jedis j = new Jedis(uri)) {
            assertNull(j.get("left-over"), "flushed between tests");
        }
    }

    @Test
    void runsWithoutTheGrpcModule() {
        assertThrows(ClassNotFoundException.class, () -> Class.forName("dev.spinel.grpc.GrpcFrontEnd"));
    }

    @Nested
    class Inner {
        @Test
        void sharesTheOuterServer(SpinelServer server) {
            assertSame(first, server);
        }
    }
}
