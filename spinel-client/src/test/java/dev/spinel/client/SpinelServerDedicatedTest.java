package dev.spinel.client;

import dev.spinel.client.testing.TestServer;

/** Blocking commands, transactions and pub/sub against an embedded Spinel (skipped until merged). */
class SpinelServerDedicatedTest extends DedicatedContract {
    @Override
    protected TestServer startServer() {
        return TestServer.spinel();
    }
}
