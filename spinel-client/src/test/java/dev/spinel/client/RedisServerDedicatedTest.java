package dev.spinel.client;

import dev.spinel.client.testing.TestServer;

/** Blocking commands, transactions and pub/sub against a real redis-server 7.0. */
class RedisServerDedicatedTest extends DedicatedContract {
    @Override
    protected TestServer startServer() {
        return TestServer.redis();
    }
}
