package dev.spinel.store;

/** The Redis type of a stored value, named as {@code TYPE} answers. */
public enum ValueType {
    STRING("string"), LIST("list"), HASH("hash"), SET("set"), ZSET("zset"), STREAM("stream");

    private final String redisName;

    ValueType(String redisName) {
        this.redisName = redisName;
    }

    public String redisName() {
        return redisName;
    }

    /**
     * The type of a stored value object. Strings are plain {@code byte[]}, or an entry holding its string
     * ({@link Entry#storedValue()}).
     */
    public static ValueType of(Object value) {
        if (value instanceof byte[] || value instanceof InlineStringEntry || value instanceof GrowableString) {
            return STRING;
        }
        if (value instanceof TypedValue t) {
            return t.type();
        }
        throw new IllegalArgumentException("not a stored value: " + value.getClass());
    }
}
