package dev.spinel.server.net;

import javax.crypto.Cipher;
import javax.crypto.EncryptedPrivateKeyInfo;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads the PEM files Redis's TLS directives name, with the JDK only: certificates (one or more
 * {@code CERTIFICATE} blocks) and a private key in PKCS#8 ({@code PRIVATE KEY}, what
 * {@code openssl req -newkey rsa:2048 -nodes} writes), encrypted PKCS#8 ({@code ENCRYPTED PRIVATE KEY},
 * with {@code tls-key-file-pass}) or PKCS#1 RSA ({@code RSA PRIVATE KEY}, unencrypted). Failures are
 * {@link IOException}s whose message is the reason alone (the caller names the file).
 */
final class PemFiles {
    private static final Pattern BLOCK = Pattern.compile("-----BEGIN ([A-Z0-9 ]+)-----(.*?)-----END \\1-----", Pattern.DOTALL);
    private static final List<String> KEY_ALGORITHMS = List.of("RSA", "EC", "Ed25519", "Ed448", "RSASSA-PSS", "DSA");

    private PemFiles() {
    }

    /** The certificates of a PEM file, in file order (a chain: the leaf first). */
    static List<X509Certificate> certificates(Path file) throws IOException {
        byte[] bytes = read(file);
        if (!new String(bytes, StandardCharsets.US_ASCII).contains("-----BEGIN CERTIFICATE-----")) {
            throw new IOException("no PEM certificate found");
        }
        try {
            List<X509Certificate> certs = CertificateFactory.getInstance("X.509")
                    .generateCertificates(new ByteArrayInputStream(bytes)).stream()
                    .map(c -> (X509Certificate) c).toList();
            if (certs.isEmpty()) {
                throw new IOException("no PEM certificate found");
            }
            return certs;
        } catch (GeneralSecurityException e) {
            throw new IOException("not a PEM certificate (" + e.getMessage() + ")", e);
        }
    }

    /** The private key of a PEM file; {@code password} decrypts an encrypted PKCS#8 key (empty: none given). */
    static PrivateKey privateKey(Path file, String password) throws IOException {
        String text = new String(read(file), StandardCharsets.US_ASCII);
        Matcher m = BLOCK.matcher(text);
        while (m.find()) {
            String type = m.group(1);
            if (!type.endsWith("PRIVATE KEY")) {
                continue;
            }
            String body = m.group(2);
            if (body.contains("Proc-Type:")) {
                throw new IOException("keys encrypted the legacy way (Proc-Type) are not supported: convert with openssl pkcs8 -topk8");
            }
            byte[] der;
            try {
                der = Base64.getMimeDecoder().decode(body.strip());
            } catch (IllegalArgumentException e) {
                throw new IOException("malformed PEM block '" + type + "'", e);
            }
            return switch (type) {
                case "PRIVATE KEY" -> pkcs8(der);
                case "ENCRYPTED PRIVATE KEY" -> pkcs8(decrypt(der, password));
                case "RSA PRIVATE KEY" -> pkcs8(rsaPkcs1ToPkcs8(der));
                default -> throw new IOException("unsupported key type '" + type + "': convert with openssl pkcs8 -topk8");
            };
        }
        throw new IOException("no PEM private key found");
    }

    /** Fails unless {@code key} is the private half of the certificate's public key (OpenSSL's "key values mismatch"). */
    static void checkPair(PrivateKey key, X509Certificate cert) throws IOException {
        String algorithm = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "EdDSA", "Ed25519", "Ed448" -> "EdDSA";
            default -> null; // other kinds: the handshake will tell
        };
        if (algorithm == null) {
            return;
        }
        byte[] probe = "spinel".getBytes(StandardCharsets.US_ASCII);
        try {
            Signature sign = Signature.getInstance(algorithm);
            sign.initSign(key);
            sign.update(probe);
            byte[] signature = sign.sign();
            Signature verify = Signature.getInstance(algorithm);
            verify.initVerify(cert.getPublicKey());
            verify.update(probe);
            if (!verify.verify(signature)) {
                throw new IOException("key values mismatch");
            }
        } catch (GeneralSecurityException e) {
            throw new IOException("key values mismatch (" + e.getMessage() + ")", e);
        }
    }

    private static byte[] read(Path file) throws IOException {
        try {
            return Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new IOException("No such file or directory", e);
        } catch (AccessDeniedException e) {
            throw new IOException("Permission denied", e);
        }
    }

    private static PrivateKey pkcs8(byte[] der) throws IOException {
        PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
        for (String algorithm : KEY_ALGORITHMS) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(spec);
            } catch (GeneralSecurityException notThisOne) {
                // try the next algorithm
            }
        }
        throw new IOException("unsupported or malformed PKCS#8 private key");
    }

    private static byte[] decrypt(byte[] der, String password) throws IOException {
        if (password.isEmpty()) {
            throw new IOException("the key is encrypted and no tls-key-file-pass is set");
        }
        try {
            EncryptedPrivateKeyInfo info = new EncryptedPrivateKeyInfo(der);
            SecretKeyFactory factory = SecretKeyFactory.getInstance(info.getAlgName());
            Cipher cipher = Cipher.getInstance(info.getAlgName());
            cipher.init(Cipher.DECRYPT_MODE, factory.generateSecret(new PBEKeySpec(password.toCharArray())),
                    info.getAlgParameters());
            return info.getKeySpec(cipher).getEncoded();
        } catch (GeneralSecurityException e) {
            throw new IOException("cannot decrypt the key (wrong tls-key-file-pass?): " + e.getMessage(), e);
        }
    }

    /** Wraps a PKCS#1 RSAPrivateKey in a PKCS#8 PrivateKeyInfo: SEQUENCE { 0, rsaEncryption, OCTET STRING }. */
    private static byte[] rsaPkcs1ToPkcs8(byte[] pkcs1) {
        byte[] version = {0x02, 0x01, 0x00};
        byte[] algorithm = {0x30, 0x0d, 0x06, 0x09, 0x2a, (byte) 0x86, 0x48, (byte) 0x86, (byte) 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00};
        byte[] octets = derTagged(0x04, pkcs1);
        byte[] body = new byte[version.length + algorithm.length + octets.length];
        System.arraycopy(version, 0, body, 0, version.length);
        System.arraycopy(algorithm, 0, body, version.length, algorithm.length);
        System.arraycopy(octets, 0, body, version.length + algorithm.length, octets.length);
        return derTagged(0x30, body);
    }

    private static byte[] derTagged(int tag, byte[] content) {
        int n = content.length;
        int lengthBytes = n < 0x80 ? 0 : n < 0x100 ? 1 : n < 0x10000 ? 2 : 3;
        byte[] out = new byte[2 + lengthBytes + n];
        out[0] = (byte) tag;
        if (lengthBytes == 0) {
            out[1] = (byte) n;
        } else {
            out[1] = (byte) (0x80 | lengthBytes);
            for (int i = 0; i < lengthBytes; i++) {
                out[2 + i] = (byte) (n >>> (8 * (lengthBytes - 1 - i)));
            }
        }
        System.arraycopy(content, 0, out, 2 + lengthBytes, n);
        return out;
    }
}
