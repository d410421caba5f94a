package dev.spinel.client;

import java.net.URI;
import java.net.URISyntaxException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

/**
 * A parsed {@code redis://[[user]:password@]host[:port][/db]} address; {@code rediss://} is the same over
 * TLS (set up by {@link TlsOptions}). Immutable.
 *
 * @param user     ACL user name, or null (then AUTH uses the password alone)
 * @param password password, or null for no authentication
 * @param db       database selected after connecting (and again after each reconnect)
 * @param tls      true for {@code rediss://}
 */
public record RedisUri(String host, int port, String user, String password, int db, boolean tls) {

    /** A plain-TCP ({@code redis://}) address. */
    public RedisUri(String host, int port, String user, String password, int db) {
        this(host, port, user, password, db, false);
    }

    public static RedisUri parse(String uri) {
        URI u;
        try {
            u = new URI(uri);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException("invalid Redis URI: " + uri, e);
        }
        boolean tls = "rediss".equalsIgnoreCase(u.getScheme());
        if (!tls && !"redis".equalsIgnoreCase(u.getScheme())) {
            throw new IllegalArgumentException("only redis:// and rediss:// URIs are supported: " + uri);
        }
        String host = u.getHost() == null ? "127.0.0.1" : u.getHost();
        int port = u.getPort() < 0 ? 6379 : u.getPort();
        String user = null;
        String password = null;
        String info = u.getRawUserInfo();
        if (info != null && !info.isEmpty()) {
            int colon = info.indexOf(':');
            if (colon < 0) {
                password = decode(info); // redis://secret@host: a password alone, as redis-cli reads it
            } else {
                user = colon == 0 ? null : decode(info.substring(0, colon));
                password = decode(info.substring(colon + 1));
            }
        }
        int db = 0;
        String path = u.getPath();
        if (path != null && path.length() > 1) {
            try {
                db = Integer.parseInt(path.substring(1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("invalid database number in " + uri);
            }
            if (db < 0) {
                throw new IllegalArgumentException("invalid database number in " + uri);
            }
        }
        return new RedisUri(host, port, user, password, db, tls);
    }

    private static String decode(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }

    @Override
    public String toString() { // never print the password
        return (tls ? "rediss://" : "redis://") + (user != null ? user + ":***@" : password != null ? "***@" : "") + host + ":" + port + "/" + db;
    }
}
