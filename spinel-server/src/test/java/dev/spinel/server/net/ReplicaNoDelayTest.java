package dev.spinel.server.net;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.engine.Session;
import dev.spinel.server.testing.RawClient;
import io.netty.channel.ChannelOption;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Redis's {@code repl-disable-tcp-nodelay}: a master sends a full resync's replica its stream without TCP_NODELAY
 * when it is on; every other connection (and every replica when it is off, the default) keeps TCP_NODELAY.
 */
class ReplicaNoDelayTest {
    /** TCP_NODELAY of the master's connections: its replica's, then the others'. */
    private static List<Boolean> noDelays(boolean disable) throws Exception {
        try (SpinelServer master = SpinelServer.start(ServerConfig.defaults().with("port", "0")
                .with("repl-disable-tcp-nodelay", disable ? "yes" : "no"));
             SpinelServer replica = SpinelServer.start(ServerConfig.defaults().with("port", "0"));
             RawClient m = new RawClient(master.port()); RawClient r = new RawClient(replica.port())) {
            r.call("REPLICAOF", "127.0.0.1", Integer.toString(master.port()));
            long deadline = System.currentTimeMillis() + 20_000;
            while (!r.callString("INFO", "replication").contains("master_link_status:up")) {
                assertTrue(System.currentTimeMillis() < deadline, "the replica never synced");
                Thread.sleep(20);
            }
            List<Boolean> replicaSide = new ArrayList<>();
            List<Boolean> clients = new ArrayList<>();
            for (Session s : master.engine().clients().all()) {
                if (s.connection() instanceof RespConnectionHandler h) {
                    boolean on = h.ctx.channel().config().getOption(ChannelOption.TCP_NODELAY);
                    (master.engine().hooks().isReplicaClient(s) ? replicaSide : clients).add(on);
                }
            }
            assertEquals(1, replicaSide.size());
            List<Boolean> out = new ArrayList<>(replicaSide);
            out.addAll(clients);
            return out;
        }
    }

    @Test
    void aFullResyncsReplicaLosesTcpNoDelayOnlyWhenAskedTo() throws Exception {
        assertEquals(List.of(false, true), noDelays(true));
        assertEquals(List.of(true, true), noDelays(false));
    }
}
