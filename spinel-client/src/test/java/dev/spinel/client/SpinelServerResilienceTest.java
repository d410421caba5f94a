package dev.spinel.client;

import dev.spinel.client.testing.TestServer;

/** Authentication, restarts and resubscription against an embedded Spinel. */
class SpinelServerResilienceTest extends ResilienceContract {
    @Override
    protected TestServer startServer(String... config) {
        return TestServer.spinel(config);
    }
}
