package dev.spinel.server.net;

import org.junit.jupiter.api.BeforeEach;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** {@link RobustnessTest}'s cases on Netty's native io_uring transport, where the kernel offers io_uring. */
class IoUringRobustnessTest extends RobustnessTest {
    @BeforeEach
    void needsIoUring() {
        assumeTrue(IoTransport.IO_URING.available(), () -> "io_uring unavailable: " + IoTransport.IO_URING.unavailabilityCause());
    }

    @Override
    IoTransport transport() {
        return IoTransport.IO_URING;
    }
}
