package dev.spinel.client;

import dev.spinel.client.testing.TestServer;

/** rediss:// against a real redis-server listening with TLS only. */
class RedisServerTlsTest extends TlsContract {
    @Override
    protected TestServer startServer(String... extra) {
        return TestServer.redisTls(extra);
    }
}
