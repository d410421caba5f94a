package dev.spinel.client;

import java.util.ArrayList;
import java.util.List;

/**
 * The options of {@code SET key value [NX | XX] [EX s | PX ms | EXAT t | PXAT t | KEEPTTL]}.
 * Immutable: each method returns a new instance. Conflicting options are sent as given, and the
 * server answers them with its own syntax error.
 */
public final class SetArgs {
    private final String expiry;
    private final long amount;
    private final String condition;

    private SetArgs(String expiry, long amount, String condition) {
        this.expiry = expiry;
        this.amount = amount;
        this.condition = condition;
    }

    public static SetArgs none() {
        return new SetArgs(null, 0, null);
    }

    public SetArgs ex(long seconds) {
        return new SetArgs("EX", seconds, condition);
    }

    public SetArgs px(long milliseconds) {
        return new SetArgs("PX", milliseconds, condition);
    }

    public SetArgs exAt(long unixSeconds) {
        return new SetArgs("EXAT", unixSeconds, condition);
    }

    public SetArgs pxAt(long unixMilliseconds) {
        return new SetArgs("PXAT", unixMilliseconds, condition);
    }

    public SetArgs keepTtl() {
        return new SetArgs("KEEPTTL", 0, condition);
    }

    /** Only set a key that does not exist. */
    public SetArgs nx() {
        return new SetArgs(expiry, amount, "NX");
    }

    /** Only set a key that exists. */
    public SetArgs xx() {
        return new SetArgs(expiry, amount, "XX");
    }

    /** The option words, as command arguments. */
    public Object[] encode() {
        List<Object> out = new ArrayList<>(3);
        if (condition != null) {
            out.add(condition);
        }
        if (expiry != null) {
            out.add(expiry);
            if (!expiry.equals("KEEPTTL")) {
                out.add(amount);
            }
        }
        return out.toArray();
    }
}
