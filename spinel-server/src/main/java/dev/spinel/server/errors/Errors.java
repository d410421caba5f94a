package dev.spinel.server.errors;

/** Redis's most common error replies, preallocated. Texts are Redis 7.0's, byte for byte. */
public final class Errors {
    private Errors() {
    }

    public static final RedisError SYNTAX = new RedisError("ERR syntax error");
    public static final RedisError WRONGTYPE =
            new RedisError("WRONGTYPE Operation against a key holding the wrong kind of value");
    public static final RedisError NOT_INTEGER = new RedisError("ERR value is not an integer or out of range");
    public static final RedisError NOT_FLOAT = new RedisError("ERR value is not a valid float");
    public static final RedisError OVERFLOW = new RedisError("ERR increment or decrement would overflow");
    public static final RedisError NO_SUCH_KEY = new RedisError("ERR no such key");
    public static final RedisError DB_INDEX = new RedisError("ERR DB index is out of range");
    public static final RedisError INVALID_EXPIRE = new RedisError("ERR invalid expire time in '%s' command");
    public static final RedisError NOAUTH = new RedisError("NOAUTH Authentication required.");
    public static final RedisError NOT_POSITIVE = new RedisError("ERR value is out of range, must be positive");

    public static RedisError wrongArgs(String command) {
        return new RedisError("ERR wrong number of arguments for '" + command + "' command");
    }

    public static RedisError invalidExpire(String command) {
        return new RedisError("ERR invalid expire time in '" + command + "' command");
    }

    public static RedisError unknownSubcommand(String sub, String container) {
        return new RedisError("ERR unknown subcommand '" + truncate(sub) + "'. Try " + container + " HELP.");
    }

    static String truncate(String s) {
        return s.length() > 128 ? s.substring(0, 128) : s;
    }
}
