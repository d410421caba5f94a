package dev.spinel.server.net;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ConfigException;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** The io-transport directive: what each word selects, the fallback, and what INFO reports. */
class IoTransportTest {
    @Test
    void anAvailableChoiceIsHonouredWithoutComplaint() {
        List<String> complaints = new ArrayList<>();
        for (IoTransport t : IoTransport.values()) {
            if (t.available()) {
                assertEquals(t, IoTransport.select(t.word(), complaints::add));
            } else {
                IoTransport chosen = IoTransport.select(t.word(), complaints::add);
                assertTrue(chosen.available(), chosen + " was chosen in place of " + t);
            }
        }
        long unavailable = Arrays.stream(IoTransport.values()).filter(t -> !t.available()).count();
        assertEquals(unavailable, complaints.size(), "one warning per unavailable choice: " + complaints);
    }

    @Test
    void loopsStayOnTheirThread() {
        // A loop that may move to another thread measures its active I/O time with three clock reads per turn.
        for (IoTransport t : IoTransport.values()) {
            if (t.available()) {
                assertFalse(t.ioHandlerFactory().isChangingThreadSupported(), t.word());
            }
        }
    }

    @Test
    void autoPrefersEpollThenIoUringThenNio() {
        // a run of the suite on another transport (-Dspinel.io-transport=io_uring) changes what auto means
        assumeTrue(System.getProperty(IoTransport.AUTO_PROPERTY) == null, "auto is replaced in this JVM");
        IoTransport expected = IoTransport.EPOLL.available() ? IoTransport.EPOLL
                : IoTransport.IO_URING.available() ? IoTransport.IO_URING : IoTransport.NIO;
        assertEquals(expected, IoTransport.select("auto", message -> { }));
        assertTrue(IoTransport.NIO.available());
    }

    @Test
    void thePropertyReplacesAuto() {
        String before = System.getProperty(IoTransport.AUTO_PROPERTY);
        try {
            System.setProperty(IoTransport.AUTO_PROPERTY, "nio");
            assertEquals(IoTransport.NIO, IoTransport.select("auto", message -> { }));
            if (IoTransport.EPOLL.available()) {
                assertEquals(IoTransport.EPOLL, IoTransport.select("epoll", message -> { }), "an explicit choice stays");
            }
        } finally {
            if (before == null) {
                System.clearProperty(IoTransport.AUTO_PROPERTY);
            } else {
                System.setProperty(IoTransport.AUTO_PROPERTY, before);
            }
        }
    }

    @Test
    void directiveAcceptsOnlyItsWordsAndIsFixedAtStart() throws ConfigException {
        ServerConfig c = ServerConfig.defaults();
        assertEquals("auto", c.ioTransport.value());
        assertEquals("io_uring", c.with("io-transport", "IO_URING").ioTransport.value());
        ConfigException e = assertThrows(ConfigException.class, () -> c.set("io-transport", "kqueue"));
        assertTrue(e.getMessage().contains("auto, epoll, io_uring, nio"), e.getMessage());
        assertTrue(!c.ioTransport.mutable(), "CONFIG SET cannot change it: the loops are built at start");
    }

    @Test
    void infoShowsTheTransportInUse() throws IOException {
        try (SpinelServer server = SpinelServer.start(ServerConfig.defaults().with("port", "0").with("io-transport", "nio"));
             RawClient c = new RawClient(server.port())) {
            assertEquals(IoTransport.NIO, server.transport());
            String info = new String(c.call("INFO", "server"), StandardCharsets.UTF_8);
            assertTrue(info.contains("multiplexing_api:nio\r\n"), info);
        }
    }
}
