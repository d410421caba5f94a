package dev.spinel.server.diff;

import dev.spinel.server.SpinelServer;
import dev.spinel.server.config.ServerConfig;
import dev.spinel.server.testing.RawClient;
import dev.spinel.server.testing.RedisServerProcess;
import dev.spinel.server.testing.TestCertificates;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The tls-* directives side by side with a real redis-server started with the same ones: over TLS,
 * CONFIG GET of each and CONFIG SET (accepted values and refusals, error texts included) must reply
 * the same bytes. (CONFIG GET tls-* as a whole differs: Redis also has the session-cache, DH, client
 * certificate and cluster/replication directives, which Spinel does not implement.)
 */
class TlsConfigDiffTest {
    private static final List<String> PARAMS = List.of("tls-cert-file", "tls-key-file", "tls-key-file-pass", "tls-ca-cert-file",
            "tls-ca-cert-dir", "tls-auth-clients", "tls-protocols", "tls-ciphers", "tls-ciphersuites", "tls-prefer-server-ciphers");

    @Test
    void configGetAndSetReplyAsRedis() throws Exception {
        TestCertificates certs = TestCertificates.shared();
        List<String> common = List.of("--tls-protocols", "TLSv1.2 TLSv1.3", "--tls-prefer-server-ciphers", "no");
        int redisTlsPort = RedisServerProcess.freePort();
        List<String> redisArgs = new ArrayList<>(certs.serverArgs(redisTlsPort));
        redisArgs.addAll(common);
        List<String> spinelArgs = new ArrayList<>(certs.serverArgs(RedisServerProcess.freePort()));
        spinelArgs.addAll(common);
        ServerConfig config = ServerConfig.defaults().with("port", "0");
        for (int i = 0; i < spinelArgs.size(); i += 2) {
            config.with(spinelArgs.get(i).substring(2), spinelArgs.get(i + 1));
        }
        try (RedisServerProcess redis = RedisServerProcess.start(redisArgs.toArray(String[]::new));
             SpinelServer spinel = SpinelServer.start(config);
             RawClient r = new RawClient(TestCertificates.connect(certs.clientContext(), redisTlsPort));
             RawClient s = new RawClient(TestCertificates.connect(certs.clientContext(), spinel.tlsPort()))) {
            List<List<String>> script = new ArrayList<>();
            for (String p : PARAMS) {
                script.add(List.of("CONFIG", "GET", p));
            }
            script.add(List.of("CONFIG", "GET", "tls-port")); // (the port numbers differ: replaced below)
            for (String[] set : new String[][]{
                    {"tls-protocols", "TLSv1.2 foo"}, {"tls-protocols", "tlsv1.3"}, {"tls-protocols", ""},
                    {"tls-ciphers", "foo"}, {"tls-ciphers", "ECDHE-RSA-AES128-GCM-SHA256:foo"}, {"tls-ciphers", "DEFAULT"},
                    {"tls-ciphersuites", "foo"}, {"tls-ciphersuites", "TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256"},
                    {"tls-cert-file", "/nonexistent/server.crt"}, {"tls-key-file", "/nonexistent/server.key"},
                    {"tls-ca-cert-file", "/nonexistent/ca.crt"}, {"tls-ca-cert-dir", "/nonexistent"},
                    {"tls-auth-clients", "maybe"}, {"tls-auth-clients", "optional"}, {"tls-auth-clients", "YES"},
                    {"tls-prefer-server-ciphers", "maybe"}, {"tls-prefer-server-ciphers", "yes"},
                    {"tls-key-file-pass", "unused"}, {"tls-port", "70000"}, {"tls-port", "-1"}, {"tls-port", "x"}}) {
                script.add(List.of("CONFIG", "SET", set[0], set[1]));
                script.add(List.of("CONFIG", "GET", set[0]));
            }
            script.add(List.of("CONFIG", "SET", "tls-ca-cert-dir", "", "tls-protocols", "bad"));
            script.add(List.of("CONFIG", "GET", "tls-ca-cert-dir"));
            script.add(List.of("SET", "k", "v"));
            script.add(List.of("GET", "k"));
            script.add(List.of("HELLO", "3", "SETNAME", "tls"));
            for (List<String> command : script) {
                String[] args = command.toArray(String[]::new);
                String expected = r.callString(args);
                String actual = s.callString(args);
                if (command.contains("tls-port") && command.get(1).equals("GET")) {
                    actual = actual.replace(spinel.tlsPort() + "\r\n", redisTlsPort + "\r\n");
                }
                if (command.getFirst().equals("HELLO")) { // server name, version and client id differ
                    expected = expected.substring(0, 4);
                    actual = actual.substring(0, 4);
                }
                assertEquals(expected, actual, String.join(" ", command));
            }
        }
    }
}
