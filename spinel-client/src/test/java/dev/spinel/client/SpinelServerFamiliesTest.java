package dev.spinel.client;

import dev.spinel.client.testing.TestServer;

/** The typed command families against an embedded Spinel (families not merged yet are skipped). */
class SpinelServerFamiliesTest extends CommandFamiliesContract {
    @Override
    protected TestServer startServer() {
        return TestServer.spinel();
    }
}
