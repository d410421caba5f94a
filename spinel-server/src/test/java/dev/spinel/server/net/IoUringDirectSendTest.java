package dev.spinel.server.net;

import dev.spinel.server.config.ServerConfig;
import org.junit.jupiter.api.BeforeAll;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * {@link DirectSendTest}'s cases on io_uring, where replies leave as sends queued from the loop ({@link UringSend}):
 * what a send did not take goes through Netty's write path, and the replies made meanwhile wait behind both.
 */
class IoUringDirectSendTest extends DirectSendTest {
    @BeforeAll
    void needsIoUring() {
        assumeTrue(IoTransport.IO_URING.available(), () -> "io_uring unavailable: " + IoTransport.IO_URING.unavailabilityCause());
    }

    @Override
    ServerConfig config() {
        return super.config().with("io-transport", "io_uring").with("event-loop-threads", "1");
    }
}
