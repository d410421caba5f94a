package dev.spinel.server.acl;

/**
 * An ACL user: a name and its current rules. Sessions keep a reference to the user they authenticated
 * as, so a change by ACL SETUSER applies to them at their next command, as in Redis.
 *
 * <p>Thread-safety: the rules are replaced as a whole (volatile), never modified once published.
 */
public final class User {
    private final String name;
    volatile UserRules rules;

    User(String name, UserRules rules) {
        this.name = name;
        this.rules = rules.seal();
    }

    /** The name, as ISO-8859-1 text (one char per byte of the name Redis clients sent). */
    public String name() {
        return name;
    }

    public UserRules rules() {
        return rules;
    }
}
