package dev.spinel.server.acl;

/** A rule that ACL SETUSER (or an ACL file) cannot apply; the message is Redis's description of why. */
public final class AclRuleException extends Exception {
    static final String UNKNOWN = "Unknown command or category name in ACL";
    static final String SYNTAX = "Syntax error";
    static final String KEYS_AFTER_ALL = "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid "
            + "and does not have any effect. Try 'resetkeys' to start with an empty list of patterns";
    static final String CHANNELS_AFTER_ALL = "Adding a pattern after the * pattern (or the 'allchannels' flag) is not "
            + "valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels";
    static final String NO_SUCH_PASSWORD = "The password you are trying to remove from the user does not exist";
    static final String BAD_HASH = "The password hash must be exactly 64 characters and contain only lowercase "
            + "hexadecimal characters";
    static final String FIRST_ARG_OF_SUB = "Allowing first-arg of a subcommand is not supported";

    /** True for an unknown command or category (a config file's users may name module commands: not fatal there). */
    final boolean unknownName;

    AclRuleException(String message) {
        super(message, null, false, false);
        this.unknownName = message == UNKNOWN;
    }
}
