package dev.spinel.server.config;

/** A configuration value or directive that cannot be accepted; the message says why, in Redis's words. */
public final class ConfigException extends Exception {
    public ConfigException(String message) {
        super(message);
    }
}
