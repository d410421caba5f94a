package dev.spinel.server.net;

/** {@link RobustnessTest}'s cases on the JDK's NIO transport, the fallback where no native one loads. */
class NioRobustnessTest extends RobustnessTest {
    @Override
    IoTransport transport() {
        return IoTransport.NIO;
    }
}
