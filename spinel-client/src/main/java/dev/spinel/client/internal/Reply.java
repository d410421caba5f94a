package dev.spinel.client.internal;

import dev.spinel.protocol.RespValue;

/**
 * Turns a decoded non-error reply into the typed result of a command. Implementations are stateless
 * or hold only the codec, are created once per client (never per command), and are thread-safe.
 */
@FunctionalInterface
public interface Reply<T> {
    T convert(RespValue value);
}
