package dev.spinel.client;

import dev.spinel.client.testing.TestServer;

/** rediss:// against an embedded Spinel listening with TLS only. */
class SpinelServerTlsTest extends TlsContract {
    @Override
    protected TestServer startServer(String... extra) {
        return TestServer.spinelTls(extra);
    }
}
