package dev.spinel.client;

import java.time.Duration;

/**
 * Tuning of a client. Immutable; derive variants with the {@code with...} methods.
 *
 * @param commandTimeout   how long a command may wait for its reply (blocking commands: their own timeout plus this)
 * @param maxInFlight      commands queued or awaiting a reply on one connection before {@link QueueFullException}
 * @param reconnectMin     first delay before reconnecting; doubled after each failed attempt
 * @param reconnectMax     longest delay between reconnect attempts
 * @param connectTimeout   TCP connect timeout
 * @param dedicatedPoolSize connections kept idle for blocking commands, transactions and pub/sub
 * @param resp3            try {@code HELLO 3} first (falls back to RESP2 when the server does not know HELLO)
 * @param ioThreads        event-loop threads of the client (each connection lives on one of them)
 * @param tls              how {@code rediss://} connections set up TLS (trust, client certificate, verification)
 */
public record ClientOptions(Duration commandTimeout, int maxInFlight, Duration reconnectMin, Duration reconnectMax,
                            Duration connectTimeout, int dedicatedPoolSize, boolean resp3, int ioThreads, TlsOptions tls) {

    public static ClientOptions defaults() {
        return new ClientOptions(Duration.ofSeconds(60), 100_000, Duration.ofMillis(20), Duration.ofSeconds(5),
                Duration.ofSeconds(10), 4, true, 1, TlsOptions.defaults());
    }

    public ClientOptions {
        if (maxInFlight < 1 || dedicatedPoolSize < 0 || ioThreads < 1) {
            throw new IllegalArgumentException("maxInFlight and ioThreads must be >= 1, dedicatedPoolSize >= 0");
        }
        if (tls == null) {
            throw new IllegalArgumentException("tls must not be null (TlsOptions.defaults())");
        }
    }

    /** The options as they were before TLS: default TLS settings. */
    public ClientOptions(Duration commandTimeout, int maxInFlight, Duration reconnectMin, Duration reconnectMax,
                         Duration connectTimeout, int dedicatedPoolSize, boolean resp3, int ioThreads) {
        this(commandTimeout, maxInFlight, reconnectMin, reconnectMax, connectTimeout, dedicatedPoolSize, resp3, ioThreads,
                TlsOptions.defaults());
    }

    public ClientOptions withCommandTimeout(Duration d) {
        return new ClientOptions(d, maxInFlight, reconnectMin, reconnectMax, connectTimeout, dedicatedPoolSize, resp3, ioThreads, tls);
    }

    public ClientOptions withMaxInFlight(int n) {
        return new ClientOptions(commandTimeout, n, reconnectMin, reconnectMax, connectTimeout, dedicatedPoolSize, resp3, ioThreads, tls);
    }

    public ClientOptions withReconnectDelay(Duration min, Duration max) {
        return new ClientOptions(commandTimeout, maxInFlight, min, max, connectTimeout, dedicatedPoolSize, resp3, ioThreads, tls);
    }

    public ClientOptions withResp3(boolean tryResp3) {
        return new ClientOptions(commandTimeout, maxInFlight, reconnectMin, reconnectMax, connectTimeout, dedicatedPoolSize, tryResp3, ioThreads, tls);
    }

    public ClientOptions withDedicatedPoolSize(int n) {
        return new ClientOptions(commandTimeout, maxInFlight, reconnectMin, reconnectMax, connectTimeout, n, resp3, ioThreads, tls);
    }

    /** TLS settings for {@code rediss://} URIs. */
    public ClientOptions withTls(TlsOptions t) {
        return new ClientOptions(commandTimeout, maxInFlight, reconnectMin, reconnectMax, connectTimeout, dedicatedPoolSize, resp3, ioThreads, t);
    }
}
