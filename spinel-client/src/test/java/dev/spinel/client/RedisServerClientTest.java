package dev.spinel.client;

import dev.spinel.client.testing.TestServer;

/** The client contract against a real redis-server 7.0. */
class RedisServerClientTest extends ClientContract {
    @Override
    protected TestServer startServer() {
        return TestServer.redis();
    }
}
