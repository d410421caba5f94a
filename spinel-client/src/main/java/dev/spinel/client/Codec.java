package dev.spinel.client;

import java.nio.charset.StandardCharsets;

/**
 * How keys ({@code K}) and values ({@code V}) become bytes and back. Chosen once per client:
 * {@link #UTF8} for {@code String}, {@link #BYTES} for {@code byte[]} (binary data is never
 * converted through {@code String}). Implementations must be thread-safe (stateless).
 */
public interface Codec<K, V> {
    byte[] encodeKey(K key);

    byte[] encodeValue(V value);

    K decodeKey(byte[] bytes);

    V decodeValue(byte[] bytes);

    /** UTF-8 strings for keys and values. */
    Codec<String, String> UTF8 = new Codec<>() {
        public byte[] encodeKey(String key) {
            return key.getBytes(StandardCharsets.UTF_8);
        }

        public byte[] encodeValue(String value) {
            return value.getBytes(StandardCharsets.UTF_8);
        }

        public String decodeKey(byte[] bytes) {
            return new String(bytes, StandardCharsets.UTF_8);
        }

        public String decodeValue(byte[] bytes) {
            return new String(bytes, StandardCharsets.UTF_8);
        }
    };

    /** Raw bytes, passed through without copies. */
    Codec<byte[], byte[]> BYTES = new Codec<>() {
        public byte[] encodeKey(byte[] key) {
            return key;
        }

        public byte[] encodeValue(byte[] value) {
            return value;
        }

        public byte[] decodeKey(byte[] bytes) {
            return bytes;
        }

        public byte[] decodeValue(byte[] bytes) {
            return bytes;
        }
    };
}
