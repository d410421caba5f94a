package dev.spinel.client;

import dev.spinel.client.testing.TestServer;

/** The client contract against an embedded Spinel. */
class SpinelServerClientTest extends ClientContract {
    @Override
    protected TestServer startServer() {
        return TestServer.spinel();
    }
}
