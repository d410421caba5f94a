package dev.spinel.client;

import dev.spinel.client.testing.TestServer;

/** The typed command families against a real redis-server 7.0. */
class RedisServerFamiliesTest extends CommandFamiliesContract {
    @Override
    protected TestServer startServer() {
        return TestServer.redis();
    }
}
