package dev.spinel.server.acl;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Everything a user is allowed: flags, password hashes (SHA-256, hex) and selectors (the root one
 * first). ACL SETUSER builds a modified copy and publishes it in one write ({@link User#rules}), so a
 * command checked on another event loop sees either the old rules or the new ones, never a mix.
 *
 * <p>Mutable only before it is published.
 */
public final class UserRules {
    static final int ON = 1;
    static final int OFF = 2;
    static final int NOPASS = 4;
    static final int SKIP_SANITIZE = 8;
    static final int SANITIZE = 16;
    private static final String[] FLAG_NAMES = {"on", "off", "nopass", "skip-sanitize-payload", "sanitize-payload"};

    int flags = OFF;
    final List<String> passwords = new ArrayList<>();
    final List<Selector> selectors = new ArrayList<>();
    /** Root selector allows every command, key and channel: dispatch then checks nothing else. */
    boolean unrestricted;
    /** acl-pubsub-default: {@link Selector#ALLCHANNELS} or 0, for new selectors and {@code reset}. */
    int pubsubDefault;

    UserRules(int pubsubDefault) {
        this.pubsubDefault = pubsubDefault;
        selectors.add(new Selector(pubsubDefault));
    }

    UserRules copy() {
        UserRules r = new UserRules(pubsubDefault);
        r.flags = flags;
        r.passwords.addAll(passwords);
        r.selectors.clear();
        for (Selector s : selectors) {
            r.selectors.add(s.copy());
        }
        return r;
    }

    /** Computes the derived fields; called once before publishing. */
    UserRules seal() {
        unrestricted = false;
        for (Selector s : selectors) {
            unrestricted |= s.unrestricted();
        }
        return this;
    }

    /** True when the user may run anything on any key and channel (one field read on the hot path). */
    public boolean unrestricted() {
        return unrestricted;
    }

    public boolean enabled() {
        return (flags & ON) != 0;
    }

    public boolean nopass() {
        return (flags & NOPASS) != 0;
    }

    Selector root() {
        return selectors.getFirst();
    }

    List<String> flagNames() {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < FLAG_NAMES.length; i++) {
            if ((flags & (1 << i)) != 0) {
                out.add(FLAG_NAMES[i]);
            }
        }
        return out;
    }

    /** Applies one rule (Redis's ACLSetUser); selectors' rules go to the root selector. */
    void apply(String op) throws AclRuleException {
        if (op.isEmpty()) {
            return;
        }
        if (op.equalsIgnoreCase("on")) {
            flags = (flags | ON) & ~OFF;
        } else if (op.equalsIgnoreCase("off")) {
            flags = (flags | OFF) & ~ON;
        } else if (op.equalsIgnoreCase("skip-sanitize-payload")) {
            flags = (flags | SKIP_SANITIZE) & ~SANITIZE;
        } else if (op.equalsIgnoreCase("sanitize-payload")) {
            flags = (flags | SANITIZE) & ~SKIP_SANITIZE;
        } else if (op.equalsIgnoreCase("nopass")) {
            flags |= NOPASS;
            passwords.clear();
        } else if (op.equalsIgnoreCase("resetpass")) {
            flags &= ~NOPASS;
            passwords.clear();
        } else if (op.charAt(0) == '>' || op.charAt(0) == '#') {
            String hash = op.charAt(0) == '>' ? hash(op.substring(1)) : checkedHash(op.substring(1));
            if (!passwords.contains(hash)) {
                passwords.add(hash);
            }
            flags &= ~NOPASS;
        } else if (op.charAt(0) == '<' || op.charAt(0) == '!') {
            String hash = op.charAt(0) == '<' ? hash(op.substring(1)) : checkedHash(op.substring(1));
            if (!passwords.remove(hash)) {
                throw new AclRuleException(AclRuleException.NO_SUCH_PASSWORD);
            }
        } else if (op.charAt(0) == '(' && op.charAt(op.length() - 1) == ')') {
            Selector s = new Selector(pubsubDefault);
            for (String inner : splitArgs(op.substring(1, op.length() - 1))) {
                s.apply(inner);
            }
            selectors.add(s);
        } else if (op.equalsIgnoreCase("clearselectors")) {
            selectors.subList(1, selectors.size()).clear();
        } else if (op.equalsIgnoreCase("reset")) {
            apply("resetpass");
            apply("resetkeys");
            apply("resetchannels");
            if (pubsubDefault != 0) {
                apply("allchannels");
            }
            apply("off");
            apply("sanitize-payload");
            apply("clearselectors");
            apply("-@all");
        } else {
            root().apply(op);
        }
    }

    /** Splits a selector's inside on spaces (its rules hold no quotes in practice; Redis uses sdssplitargs). */
    private static List<String> splitArgs(String s) {
        List<String> out = new ArrayList<>();
        for (String p : s.split("[ \t\r\n]+")) {
            if (!p.isEmpty()) {
                out.add(p);
            }
        }
        return out;
    }

    private static String checkedHash(String h) throws AclRuleException {
        if (h.length() != 64) {
            throw new AclRuleException(AclRuleException.BAD_HASH);
        }
        for (int i = 0; i < h.length(); i++) {
            char c = h.charAt(i);
            if ((c < 'a' || c > 'f') && (c < '0' || c > '9')) {
                throw new AclRuleException(AclRuleException.BAD_HASH);
            }
        }
        return h;
    }

    /** SHA-256 of the password's bytes (ISO-8859-1 text: one char per byte), in lower-case hex. */
    static String hash(String password) {
        return hash(password.getBytes(StandardCharsets.ISO_8859_1));
    }

    static String hash(byte[] password) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(password));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Flags, passwords and selectors as ACL LIST prints them after the user's name. */
    String describe() {
        StringBuilder sb = new StringBuilder();
        for (String f : flagNames()) {
            sb.append(f).append(' ');
        }
        for (String p : passwords) {
            sb.append('#').append(p).append(' ');
        }
        for (int i = 0; i < selectors.size(); i++) {
            String d = selectors.get(i).describe();
            if (i == 0) {
                sb.append(d);
            } else {
                sb.append(" (").append(d).append(')');
            }
        }
        return sb.toString();
    }
}
