package dev.spinel.server.net;

import io.netty.handler.ssl.CipherSuiteConverter;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Parses {@code tls-protocols}, {@code tls-ciphers} and {@code tls-ciphersuites} into the JDK's
 * protocol and cipher-suite names, with Redis's rules where the JDK allows them:
 * <ul>
 *   <li>protocols: words {@code TLSv1 TLSv1.1 TLSv1.2 TLSv1.3} (any case); empty means TLSv1.2 and TLSv1.3;</li>
 *   <li>ciphers (TLSv1.2 and older): a {@code :}-separated list of cipher names, OpenSSL's
 *       ({@code ECDHE-RSA-AES128-GCM-SHA256}) or IANA's ({@code TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256}),
 *       and {@code DEFAULT}; names the JDK does not know are skipped, as OpenSSL skips them. OpenSSL's
 *       selection language ({@code HIGH}, {@code !aNULL}, {@code @STRENGTH}) is not understood;</li>
 *   <li>ciphersuites (TLSv1.3): a {@code :}-separated list such as {@code TLS_AES_256_GCM_SHA384};</li>
 * </ul>
 * a list of which no name is usable is refused, as OpenSSL refuses it. Stateless.
 */
final class TlsSuites {
    private TlsSuites() {
    }

    /** The JDK protocol names, or {@code null} when a word is not a protocol. */
    static String[] protocols(String value) {
        if (value.isBlank()) {
            return new String[]{"TLSv1.3", "TLSv1.2"};
        }
        Set<String> out = new LinkedHashSet<>();
        for (String word : value.trim().split(" +")) {
            switch (word.toLowerCase(Locale.ROOT)) {
                case "tlsv1" -> out.add("TLSv1");
                case "tlsv1.1" -> out.add("TLSv1.1");
                case "tlsv1.2" -> out.add("TLSv1.2");
                case "tlsv1.3" -> out.add("TLSv1.3");
                default -> {
                    return null;
                }
            }
        }
        return out.toArray(String[]::new);
    }

    /** TLSv1.2-and-older suites of {@code tls-ciphers}; empty when none is usable. */
    static List<String> ciphers(String value, List<String> supported, List<String> defaults) {
        if (value.isBlank()) {
            return defaults.stream().filter(s -> !isTls13(s)).toList();
        }
        Set<String> out = new LinkedHashSet<>();
        for (String name : value.trim().split("[:, ]+")) {
            if (name.equals("DEFAULT")) {
                defaults.stream().filter(s -> !isTls13(s)).forEach(out::add);
                continue;
            }
            String java = supported.contains(name) ? name : CipherSuiteConverter.toJava(name, "TLS");
            if (java != null && supported.contains(java) && !isTls13(java)) {
                out.add(java);
            }
        }
        return new ArrayList<>(out);
    }

    /** TLSv1.3 suites of {@code tls-ciphersuites}; empty when none is usable. */
    static List<String> ciphersuites(String value, List<String> supported, List<String> defaults) {
        if (value.isBlank()) {
            return defaults.stream().filter(TlsSuites::isTls13).toList();
        }
        Set<String> out = new LinkedHashSet<>();
        for (String name : value.trim().split(":")) {
            if (supported.contains(name) && isTls13(name)) {
                out.add(name);
            }
        }
        return new ArrayList<>(out);
    }

    /** TLSv1.3 suite names name no key exchange ({@code TLS_AES_128_GCM_SHA256}); older ones do ({@code _WITH_}). */
    static boolean isTls13(String suite) {
        return suite.startsWith("TLS_") && !suite.contains("_WITH_") && !suite.endsWith("_SCSV");
    }
}
