package dev.spinel.store;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Redis's OBJECT ENCODING for strings (values checked against redis-server 7.0.15). */
class StringEncodingTest {
    private static String enc(String v) {
        return StringEncoding.of(v.getBytes(StandardCharsets.ISO_8859_1));
    }

    @Test
    void integersInCanonicalFormAreInt() {
        assertEquals("int", enc("0"));
        assertEquals("int", enc("12345"));
        assertEquals("int", enc("-1"));
        assertEquals("int", enc("9223372036854775807"));
        assertEquals("int", enc("-9223372036854775808"));
    }

    @Test
    void nonCanonicalIntegersAreStrings() {
        assertEquals("embstr", enc("9223372036854775808"));
        assertEquals("embstr", enc("-9223372036854775809"));
        assertEquals("embstr", enc("01"));
        assertEquals("embstr", enc("+1"));
        assertEquals("embstr", enc("-0"));
        assertEquals("embstr", enc(" 1"));
        assertEquals("embstr", enc("1.5"));
        assertEquals("embstr", enc("-"));
        assertEquals("embstr", enc(""));
    }

    @Test
    void lengthSelectsEmbstrOrRaw() {
        assertEquals("embstr", enc("x".repeat(44)));
        assertEquals("raw", enc("x".repeat(45)));
        assertEquals("raw", enc("1".repeat(45)));
    }
}
