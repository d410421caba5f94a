package dev.spinel.server.net;

import dev.spinel.server.config.ServerConfig;

import java.util.Arrays;
import java.util.List;

/**
 * Where the RESP front end listens, read from the configuration ({@code bind}, {@code port}, {@code tls-port}).
 *
 * <p>Thread-safety: stateless.
 */
public final class Listeners {
    private Listeners() {
    }

    /** The {@code bind} addresses, in their order. */
    public static List<String> bindAddresses(ServerConfig config) {
        return Arrays.stream(config.bind.value().trim().split("\\s+")).filter(s -> !s.isEmpty()).toList();
    }

    /**
     * The plain and TLS ports to listen on, -1 for none. {@code port 0} means "no plain listener" while
     * {@code tls-port} is set (Redis's meaning), and "any free port" otherwise (for embedding).
     */
    public static int[] wantedPorts(ServerConfig config) {
        int plain = (int) config.port.value();
        int tls = (int) config.tlsPort.value();
        return new int[]{plain == 0 && tls != 0 ? -1 : plain, tls == 0 ? -1 : tls};
    }
}
