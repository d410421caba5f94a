package dev.spinel.server.replication;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import dev.spinel.server.testing.TestCertificates;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

import static dev.spinel.server.replication.ReplicationTest.awaitInSync;
import static dev.spinel.server.replication.ReplicationTest.info;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * {@code tls-replication yes}: the replica's link goes to the master's TLS port, the replica showing its
 * certificate (the master asks for one: tls-auth-clients yes) and checking the master's against its CAs;
 * redis-server 7.0 on the other end, both ways, and Spinel to Spinel.
 */
class ReplicationTlsTest {
    private static final TestCertificates CERTS = TestCertificates.shared();

    private static ServerConfig spinelTls(int tlsPort) {
        return ServerConfig.defaults().with("port", Integer.toString(freePlainPort())).with("tls-port", Integer.toString(tlsPort))
                .with("tls-cert-file", CERTS.serverCert.toString()).with("tls-key-file", CERTS.serverKey.toString())
                .with("tls-ca-cert-file", CERTS.caCert.toString()).with("repl-diskless-sync-delay", "0");
    }

    /** With tls-port set, port 0 means no plain listener: the tests' clients use a plain one. */
    private static int freePlainPort() {
        try {
            return RedisServerProcess.freePort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A replica's TLS setup: its certificate is its client certificate on the link (the test CA's are for one use). */
    private static ServerConfig spinelReplicaTls(int tlsPort) {
        return spinelTls(tlsPort).with("tls-cert-file", CERTS.clientCert.toString()).with("tls-key-file", CERTS.clientKey.toString());
    }

    private static String[] redisTls(boolean replica, String... more) {
        List<String> a = new ArrayList<>(List.of("--tls-cert-file", (replica ? CERTS.clientCert : CERTS.serverCert).toString(),
                "--tls-key-file", (replica ? CERTS.clientKey : CERTS.serverKey).toString(), "--tls-ca-cert-file", CERTS.caCert.toString()));
        a.addAll(List.of(more));
        return a.toArray(String[]::new);
    }

    private static void write(RawClient m) throws Exception {
        m.callString("SET", "k", "v");
        m.callString("RPUSH", "l", "a", "b");
        m.callString("HSET", "h", "f", "1");
    }

    @Test
    void aRedisReplicaOfSpinelOverTls() throws Exception {
        int tls = RedisServerProcess.freePort();
        try (SpinelServer master = SpinelServer.start(spinelTls(tls));
             RawClient m = new RawClient(master.port())) {
            write(m);
            try (RedisServerProcess replica = RedisServerProcess.start(redisTls(true, "--tls-replication", "yes",
                    "--replicaof", "127.0.0.1", Integer.toString(tls)));
                 RawClient r = new RawClient(replica.port())) {
                awaitInSync(m, r);
                m.callString("INCR", "n");
                awaitInSync(m, r);
                assertEquals(Dataset.of(m), Dataset.of(r));
            }
        }
    }

    @Test
    void aSpinelReplicaOfRedisOverTls() throws Exception {
        int tls = RedisServerProcess.freePort();
        try (RedisServerProcess master = RedisServerProcess.start(redisTls(false, "--repl-diskless-sync-delay", "0", "--tls-port", Integer.toString(tls)));
             RawClient m = new RawClient(master.port())) {
            write(m);
            int replicaTls = RedisServerProcess.freePort();
            try (SpinelServer replica = SpinelServer.start(spinelReplicaTls(replicaTls).with("tls-replication", "yes")
                    .with("replicaof", "127.0.0.1 " + tls));
                 RawClient s = new RawClient(replica.port())) {
                awaitInSync(m, s);
                m.callString("INCR", "n");
                awaitInSync(m, s);
                assertEquals(Dataset.of(m), Dataset.of(s));
                // as Redis, a replica with tls-replication announces its TLS port
                assertEquals(List.of("master"), ReplicationTest.Resp.parse(m.call("ROLE")).subList(0, 1));
                assertEquals(Integer.toString(replicaTls), ReplicationTest.Resp.parse(m.call("ROLE")).get(3));
            }
        }
    }

    @Test
    void spinelToSpinelOverTlsAndRefusedWithoutIt() throws Exception {
        int tls = RedisServerProcess.freePort();
        try (SpinelServer master = SpinelServer.start(spinelTls(tls));
             RawClient m = new RawClient(master.port())) {
            write(m);
            // without tls-replication the replica speaks plain RESP to the TLS port: never in sync
            try (SpinelServer plain = SpinelServer.start(ServerConfig.defaults().with("port", "0")
                    .with("replicaof", "127.0.0.1 " + tls));
                 RawClient p = new RawClient(plain.port())) {
                Thread.sleep(1500);
                assertEquals("down", info(p).get("master_link_status"));
                p.callString("CONFIG", "SET", "tls-cert-file", CERTS.clientCert.toString());
                p.callString("CONFIG", "SET", "tls-key-file", CERTS.clientKey.toString());
                p.callString("CONFIG", "SET", "tls-ca-cert-file", CERTS.caCert.toString());
                assertEquals("+OK\r\n", p.callString("CONFIG", "SET", "tls-replication", "yes"));
                awaitInSync(m, p); // the next attempt goes over TLS
                assertEquals(Dataset.of(m), Dataset.of(p));
            }
        }
    }

    /**
     * {@code tls-client-cert-file} / {@code tls-client-key-file} (Redis 7.0): the replica shows that certificate on
     * its link, not its server one. A redis-server master requiring client certificates signed by its CA accepts the
     * link although the replica's tls-cert-file is another CA's, and refuses it once the client certificate is unset.
     */
    @Test
    void aSpinelReplicaShowsItsTlsClientCertificate() throws Exception {
        int tls = RedisServerProcess.freePort();
        try (RedisServerProcess master = RedisServerProcess.start(redisTls(false, "--repl-diskless-sync-delay", "0", "--tls-port", Integer.toString(tls),
                "--tls-auth-clients", "yes"));
             RawClient m = new RawClient(master.port())) {
            write(m);
            try (SpinelServer replica = SpinelServer.start(spinelTls(RedisServerProcess.freePort())
                    .with("tls-cert-file", CERTS.otherClientCert.toString()).with("tls-key-file", CERTS.otherClientKey.toString())
                    .with("tls-client-cert-file", CERTS.clientCert.toString()).with("tls-client-key-file", CERTS.clientKey.toString())
                    .with("tls-replication", "yes").with("replicaof", "127.0.0.1 " + tls));
                 RawClient s = new RawClient(replica.port())) {
                awaitInSync(m, s);
                assertEquals(Dataset.of(m), Dataset.of(s));
                assertEquals("*2\r\n$20\r\ntls-client-cert-file\r\n$" + CERTS.clientCert.toString().length() + "\r\n"
                        + CERTS.clientCert + "\r\n", s.callString("CONFIG", "GET", "tls-client-cert-file"));
                // unset: the server certificate (another CA's) goes on the link, which the master refuses
                assertEquals("+OK\r\n", s.callString("CONFIG", "SET", "tls-client-cert-file", ""));
                s.callString("CLIENT", "KILL", "TYPE", "master");
                m.callString("INCR", "n");
                Thread.sleep(2500);
                assertEquals("down", info(s).get("master_link_status"));
                assertEquals("$-1\r\n", s.callString("GET", "n"));
            }
        }
    }
}
