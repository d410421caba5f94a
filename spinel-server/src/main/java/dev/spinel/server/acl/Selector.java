package dev.spinel.server.acl;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.KeyPositions;
import dev.spinel.store.Glob;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One set of permissions of a user (Redis 7.0's selector): the commands it may run (a bitset over
 * {@link CommandIds}, plus allowed first arguments), the key patterns with their read/write
 * permissions, and the channel patterns. Every user has a root selector; {@code (...)} rules add more,
 * and a command is allowed when any selector allows it.
 *
 * <p>Not thread-safe while being built; never changed once published in a {@link UserRules}.
 */
final class Selector {
    static final int ALLKEYS = 1;
    static final int ALLCHANNELS = 2;
    static final int ALLCOMMANDS = 4;

    int flags;
    final long[] allowed;
    final List<KeyPattern> patterns;
    final List<String> channels;
    /** Allowed first arguments by command id (e.g. {@code +select|0}); null when none. */
    Map<Integer, List<String>> firstArgs;

    /** A key pattern, its text as ISO-8859-1 (one char per byte) and its permissions. */
    static final class KeyPattern {
        final String pattern;
        final byte[] bytes;
        int perms;

        KeyPattern(String pattern, int perms) {
            this.pattern = pattern;
            this.bytes = pattern.getBytes(StandardCharsets.ISO_8859_1);
            this.perms = perms;
        }
    }

    Selector(int flags) {
        this.flags = flags;
        this.allowed = new long[CommandIds.WORDS];
        this.patterns = new ArrayList<>();
        this.channels = new ArrayList<>();
    }

    Selector copy() {
        Selector s = new Selector(flags);
        System.arraycopy(allowed, 0, s.allowed, 0, allowed.length);
        for (KeyPattern p : patterns) {
            s.patterns.add(new KeyPattern(p.pattern, p.perms));
        }
        s.channels.addAll(channels);
        if (firstArgs != null) {
            s.firstArgs = new LinkedHashMap<>();
            firstArgs.forEach((id, args) -> s.firstArgs.put(id, new ArrayList<>(args)));
        }
        return s;
    }

    boolean unrestricted() {
        return (flags & (ALLKEYS | ALLCHANNELS | ALLCOMMANDS)) == (ALLKEYS | ALLCHANNELS | ALLCOMMANDS);
    }

    boolean bit(int id) {
        return (allowed[id >>> 6] & (1L << id)) != 0;
    }

    private void setBit(int id, boolean on) {
        if (on) {
            allowed[id >>> 6] |= 1L << id;
        } else {
            allowed[id >>> 6] &= ~(1L << id);
            flags &= ~ALLCOMMANDS;
        }
    }

    /** Allows or denies a command; a container's subcommands follow it. */
    void change(int id, boolean allow) {
        setBit(id, allow);
        if (firstArgs != null) {
            firstArgs.remove(id);
        }
        for (int sub : CommandIds.children(id)) {
            setBit(sub, allow);
        }
    }

    private void changeCategory(long cat, boolean allow) {
        for (int id = 0; id < CommandIds.count(); id++) {
            if ((CommandIds.categories(id) & cat) != 0) {
                change(id, allow);
            }
        }
    }

    /** Applies one rule that is about commands, keys or channels; see Redis's ACLSetSelector. */
    void apply(String op) throws AclRuleException {
        if (op.equalsIgnoreCase("allkeys") || op.equals("~*")) {
            flags |= ALLKEYS;
            patterns.clear();
        } else if (op.equalsIgnoreCase("resetkeys")) {
            flags &= ~ALLKEYS;
            patterns.clear();
        } else if (op.equalsIgnoreCase("allchannels") || op.equals("&*")) {
            flags |= ALLCHANNELS;
            channels.clear();
        } else if (op.equalsIgnoreCase("resetchannels")) {
            flags &= ~ALLCHANNELS;
            channels.clear();
        } else if (op.equalsIgnoreCase("allcommands") || op.equalsIgnoreCase("+@all")) {
            Arrays.fill(allowed, -1L);
            flags |= ALLCOMMANDS;
            firstArgs = null;
        } else if (op.equalsIgnoreCase("nocommands") || op.equalsIgnoreCase("-@all")) {
            Arrays.fill(allowed, 0L);
            flags &= ~ALLCOMMANDS;
            firstArgs = null;
        } else if (op.startsWith("~") || op.startsWith("%")) {
            addKeyPattern(op);
        } else if (op.startsWith("&")) {
            if ((flags & ALLCHANNELS) != 0) {
                throw new AclRuleException(AclRuleException.CHANNELS_AFTER_ALL);
            }
            String pattern = op.substring(1);
            if (hasSpaces(pattern)) {
                throw new AclRuleException(AclRuleException.SYNTAX);
            }
            if (!channels.contains(pattern)) {
                channels.add(pattern);
            }
            flags &= ~ALLCHANNELS;
        } else if (op.startsWith("+") && !op.startsWith("+@")) {
            allowCommand(op.substring(1));
        } else if (op.startsWith("-") && !op.startsWith("-@")) {
            int id = CommandIds.lookup(op.substring(1));
            if (id < 0) {
                throw new AclRuleException(AclRuleException.UNKNOWN);
            }
            change(id, false);
        } else if (op.startsWith("+@") || op.startsWith("-@")) {
            long cat = CommandIds.category(op.substring(2));
            if (cat == 0) {
                throw new AclRuleException(AclRuleException.UNKNOWN);
            }
            changeCategory(cat, op.charAt(0) == '+');
        } else {
            throw new AclRuleException(AclRuleException.SYNTAX);
        }
    }

    private void addKeyPattern(String op) throws AclRuleException {
        if ((flags & ALLKEYS) != 0) {
            throw new AclRuleException(AclRuleException.KEYS_AFTER_ALL);
        }
        int perms = 0;
        int offset = 1;
        if (op.charAt(0) == '%') {
            for (; offset < op.length(); offset++) {
                char c = Character.toUpperCase(op.charAt(offset));
                if (c == 'R' && (perms & KeyPositions.ACL_READ) == 0) {
                    perms |= KeyPositions.ACL_READ;
                } else if (c == 'W' && (perms & KeyPositions.ACL_WRITE) == 0) {
                    perms |= KeyPositions.ACL_WRITE;
                } else if (op.charAt(offset) == '~') {
                    offset++;
                    break;
                } else {
                    throw new AclRuleException(AclRuleException.SYNTAX);
                }
            }
        } else {
            perms = KeyPositions.ACL_READ | KeyPositions.ACL_WRITE;
        }
        String pattern = op.substring(Math.min(offset, op.length()));
        if (hasSpaces(pattern)) {
            throw new AclRuleException(AclRuleException.SYNTAX);
        }
        for (KeyPattern p : patterns) {
            if (p.pattern.equals(pattern)) {
                p.perms |= perms;
                flags &= ~ALLKEYS;
                return;
            }
        }
        patterns.add(new KeyPattern(pattern, perms));
        flags &= ~ALLKEYS;
    }

    private void allowCommand(String name) throws AclRuleException {
        int bar = name.lastIndexOf('|');
        if (bar < 0) {
            int id = CommandIds.lookup(name);
            if (id < 0) {
                throw new AclRuleException(AclRuleException.UNKNOWN);
            }
            change(id, true);
            return;
        }
        int id = CommandIds.lookup(name.substring(0, bar));
        String sub = name.substring(bar + 1);
        if (id < 0) {
            throw new AclRuleException(AclRuleException.UNKNOWN);
        }
        if (CommandIds.parent(id) >= 0) {
            throw new AclRuleException(AclRuleException.FIRST_ARG_OF_SUB);
        }
        if (sub.isEmpty()) {
            throw new AclRuleException(AclRuleException.SYNTAX);
        }
        if (CommandIds.children(id).length > 0) {
            int subId = CommandIds.lookup(name);
            if (subId < 0) {
                throw new AclRuleException(AclRuleException.UNKNOWN);
            }
            change(subId, true);
            return;
        }
        if (firstArgs == null) {
            firstArgs = new LinkedHashMap<>();
        }
        List<String> args = firstArgs.computeIfAbsent(id, k -> new ArrayList<>());
        for (String a : args) {
            if (a.equalsIgnoreCase(sub)) {
                return;
            }
        }
        args.add(sub);
    }

    static boolean hasSpaces(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == 0 || c == ' ' || (c >= '\t' && c <= '\r')) {
                return true;
            }
        }
        return false;
    }

    // ---- checks

    /** The outcome of a check: 0 allowed, else a reason in the high int and the argument index in the low one. */
    static long denied(int reason, int index) {
        return ((long) reason << 32) | index;
    }

    /**
     * Redis's ACLSelectorCheckCmd: the command bit (or an allowed first argument), then the keys, then
     * the channels. {@code keys} is the (position, permissions) pairs of the request, computed once by
     * the caller for all selectors (null when this command has none).
     */
    long check(int id, boolean noAuth, Args args, int base, int[] keys) {
        if ((flags & ALLCOMMANDS) == 0 && !noAuth && !bit(id)) {
            List<String> allowedArgs = firstArgs == null ? null : firstArgs.get(id);
            int idx = base + (CommandIds.parent(id) >= 0 ? 2 : 1);
            if (allowedArgs == null || args.count() - base < 2 || idx >= args.count()) {
                return denied(Acl.DENIED_CMD, 0);
            }
            String first = args.string(idx);
            boolean match = false;
            for (String a : allowedArgs) {
                match |= a.equalsIgnoreCase(first);
            }
            if (!match) {
                return denied(Acl.DENIED_CMD, 0);
            }
        }
        if ((flags & ALLKEYS) == 0 && keys != null) {
            for (int k = 0; k < keys.length; k += 2) {
                if (!keyAllowed(args, keys[k], keys[k + 1])) {
                    return denied(Acl.DENIED_KEY, keys[k] - base);
                }
            }
        }
        int kind = CommandIds.channels(id);
        if ((flags & ALLCHANNELS) == 0 && kind != CommandIds.NO_CHANNELS) {
            int last = kind == CommandIds.PUBLISH ? base + 1 : args.count() - 1;
            for (int i = base + 1; i <= last && i < args.count(); i++) {
                if (!channelAllowed(args, i, kind == CommandIds.PSUBSCRIBE)) {
                    return denied(Acl.DENIED_CHANNEL, i - base);
                }
            }
        }
        return 0;
    }

    boolean keyAllowed(Args args, int i, int needs) {
        if ((flags & ALLKEYS) != 0) {
            return true;
        }
        for (KeyPattern p : patterns) {
            if ((p.perms & needs) != needs) {
                continue;
            }
            if (Glob.matches(p.bytes, 0, p.bytes.length, args.buffer(), args.offset(i), args.length(i), false)) {
                return true;
            }
        }
        return false;
    }

    boolean channelAllowed(Args args, int i, boolean literal) {
        if ((flags & ALLCHANNELS) != 0) {
            return true;
        }
        byte[] ch = args.copy(i);
        for (String pattern : channels) {
            byte[] p = pattern.getBytes(StandardCharsets.ISO_8859_1);
            if (literal ? Arrays.equals(p, ch) : Glob.matches(p, 0, p.length, ch, 0, ch.length, false)) {
                return true;
            }
        }
        return false;
    }

    // ---- descriptions, as ACL LIST and ACL GETUSER print them

    /** Keys, channels and commands, as in ACL LIST ({@code ~* &* +@all}). */
    String describe() {
        StringBuilder sb = new StringBuilder();
        if ((flags & ALLKEYS) != 0) {
            sb.append("~* ");
        } else {
            for (KeyPattern p : patterns) {
                sb.append(patternString(p)).append(' ');
            }
        }
        if ((flags & ALLCHANNELS) != 0) {
            sb.append("&* ");
        } else {
            sb.append("resetchannels ");
            for (String c : channels) {
                sb.append('&').append(c).append(' ');
            }
        }
        return sb.append(commandRules()).toString();
    }

    static String patternString(KeyPattern p) {
        String prefix = p.perms == (KeyPositions.ACL_READ | KeyPositions.ACL_WRITE) ? "~"
                : p.perms == KeyPositions.ACL_READ ? "%R~" : "%W~";
        return prefix + p.pattern;
    }

    String keysDescription() {
        if ((flags & ALLKEYS) != 0) {
            return "~*";
        }
        StringBuilder sb = new StringBuilder();
        for (KeyPattern p : patterns) {
            if (!sb.isEmpty()) {
                sb.append(' ');
            }
            sb.append(patternString(p));
        }
        return sb.toString();
    }

    String channelsDescription() {
        if ((flags & ALLCHANNELS) != 0) {
            return "&*";
        }
        StringBuilder sb = new StringBuilder();
        for (String c : channels) {
            if (!sb.isEmpty()) {
                sb.append(' ');
            }
            sb.append('&').append(c);
        }
        return sb.toString();
    }

    /**
     * The command rules that rebuild this selector's bitset: +@all or -@all, the categories that fit
     * best (Redis's ACLDescribeSelectorCommandRules), then single commands and first arguments.
     */
    String commandRules() {
        StringBuilder rules = new StringBuilder();
        boolean additive = !bit(CommandIds.FUTURE);
        Selector fake = new Selector(0);
        Selector temp = new Selector(0);
        try {
            fake.apply(additive ? "-@all" : "+@all");
        } catch (AclRuleException e) {
            throw new IllegalStateException(e);
        }
        rules.append(additive ? "-@all " : "+@all ");
        System.arraycopy(allowed, 0, temp.allowed, 0, allowed.length);
        boolean[] applied = new boolean[CommandIds.CATEGORIES.size()];
        while (true) {
            int best = -1;
            long minDiff = Integer.MAX_VALUE;
            long maxSame = 0;
            for (int j = 0; j < applied.length; j++) {
                if (applied[j]) {
                    continue;
                }
                long on = 0;
                long off = 0;
                for (int id = 0; id < CommandIds.count(); id++) {
                    if ((CommandIds.categories(id) & (1L << j)) != 0) {
                        if (temp.bit(id)) {
                            on++;
                        } else {
                            off++;
                        }
                    }
                }
                long diff = additive ? off : on;
                long same = additive ? on : off;
                if (same > diff && (diff < minDiff || (diff == minDiff && same > maxSame))) {
                    best = j;
                    minDiff = diff;
                    maxSame = same;
                }
            }
            if (best < 0) {
                break;
            }
            fake.changeCategory(1L << best, additive);
            temp.changeCategory(1L << best, !additive);
            rules.append(additive ? "+@" : "-@").append(CommandIds.CATEGORIES.get(best)).append(' ');
            applied[best] = true;
        }
        for (int id = 0; id < CommandIds.count(); id++) {
            boolean user = bit(id);
            if (user != fake.bit(id)) {
                rules.append(user ? '+' : '-').append(CommandIds.spec(id).name()).append(' ');
                fake.change(id, user);
            }
            List<String> args = firstArgs == null ? null : firstArgs.get(id);
            if (!user && args != null) {
                for (String a : args) {
                    rules.append('+').append(CommandIds.spec(id).name()).append('|').append(a).append(' ');
                }
            }
        }
        rules.setLength(rules.length() - 1);
        return rules.toString();
    }
}
