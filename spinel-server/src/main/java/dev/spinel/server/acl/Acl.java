package dev.spinel.server.acl;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.CommandSpec;
import dev.spinel.protocol.KeyPositions;
import dev.spinel.store.Glob;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The users of a server (Redis 7.0's ACL): the {@code default} user that every connection starts as,
 * the others created by ACL SETUSER, the config file's {@code user} lines or the ACL file, and the
 * permission check dispatch runs before each command of a restricted user.
 *
 * <p>Thread-safety: the user table is guarded by this object's lock (ACL commands are rare); checks
 * read a user's published {@link UserRules} without locking.
 */
public final class Acl {
    public static final int DENIED_CMD = 1;
    public static final int DENIED_KEY = 2;
    public static final int DENIED_CHANNEL = 3;
    public static final int DENIED_AUTH = 4;

    private final Map<String, User> users = new TreeMap<>();
    private final User defaultUser;
    private final AclLog log = new AclLog();
    /** Told after every change of the users (SETUSER, DELUSER, LOAD): front ends re-check what they hold open. */
    private final List<Runnable> changeListeners = new CopyOnWriteArrayList<>();

    public Acl() {
        defaultUser = new User("default", defaultRules());
        users.put("default", defaultUser);
    }

    static UserRules defaultRules() {
        UserRules r = new UserRules(0);
        try {
            r.apply("+@all");
            r.apply("~*");
            r.apply("&*");
            r.apply("on");
            r.apply("nopass");
        } catch (AclRuleException e) {
            throw new IllegalStateException(e);
        }
        return r;
    }

    /** acl-pubsub-default: whether new users and selectors start with all channels (else none). */
    private volatile int pubsubDefault;

    public void pubsubDefault(boolean allChannels) {
        this.pubsubDefault = allChannels ? Selector.ALLCHANNELS : 0;
    }

    /** Rules of a new user (off, no password, nothing allowed, channels as acl-pubsub-default says). */
    UserRules newRules() {
        return new UserRules(pubsubDefault);
    }

    public User defaultUser() {
        return defaultUser;
    }

    /**
     * A user outside the ACL list with every permission (Redis's NULL user): the session that applies a
     * master's replication stream, which Redis never checks against ACL rules. Never listed nor authenticable.
     */
    public static User internalSuperuser(String name) {
        return new User(name, defaultRules());
    }

    public AclLog log() {
        return log;
    }

    /** Whether new connections must authenticate (the default user has a password or is off). */
    public boolean authRequired() {
        UserRules r = defaultUser.rules;
        return !r.nopass() || !r.enabled();
    }

    /** requirepass: sets the default user's only password, or makes it nopass when empty (as Redis). */
    public synchronized void requirepass(String password) {
        UserRules r = defaultUser.rules.copy();
        try {
            r.apply("resetpass");
            r.apply(password.isEmpty() ? "nopass" : ">" + password);
        } catch (AclRuleException e) {
            throw new IllegalStateException(e);
        }
        defaultUser.rules = r.seal();
    }

    /**
     * Runs {@code listener} after every change of the users' rules or of the table (ACL SETUSER, DELUSER,
     * LOAD), on the changing thread with this table locked: it must only hand the work on (e.g. to a loop).
     */
    public void onChange(Runnable listener) {
        changeListeners.add(listener);
    }

    private void changed() {
        for (Runnable l : changeListeners) {
            l.run();
        }
    }

    /**
     * Whether {@code u} is still this table's user of its name and enabled: false once deleted (DELUSER),
     * replaced (ACL LOAD) or switched off.
     */
    public synchronized boolean current(User u) {
        return users.get(u.name()) == u && u.rules.enabled();
    }

    public synchronized User user(String name) {
        return users.get(name);
    }

    public synchronized List<User> users() {
        return new ArrayList<>(users.values());
    }

    /** The user whose name and password these are, or null (unknown, disabled, or wrong password). */
    public User authenticate(String name, byte[] password) {
        User u = user(name);
        if (u == null) {
            return null;
        }
        UserRules r = u.rules;
        if (!r.enabled()) {
            return null;
        }
        if (r.nopass()) {
            return u;
        }
        byte[] hash = UserRules.hash(password).getBytes(StandardCharsets.US_ASCII);
        boolean ok = false;
        for (String p : r.passwords) {
            ok |= MessageDigest.isEqual(hash, p.getBytes(StandardCharsets.US_ASCII));
        }
        return ok ? u : null;
    }

    /**
     * ACL SETUSER: applies every rule to a copy of the user (a new user when there is none), and
     * publishes it only when all of them apply. Returns null, or Redis's error text.
     */
    public synchronized String setUser(String name, List<String> ops) {
        User u = users.get(name);
        UserRules r = u == null ? newRules() : u.rules.copy();
        r.pubsubDefault = pubsubDefault;
        for (String op : ops) {
            try {
                r.apply(op);
            } catch (AclRuleException e) {
                return "ERR Error in ACL SETUSER modifier '" + op + "': " + e.getMessage();
            }
        }
        if (u == null) {
            users.put(name, new User(name, r));
        } else {
            u.rules = r.seal();
            changed();
        }
        return null;
    }

    /** ACL DELUSER: removes the users that exist; returns them (their connections are to be closed). */
    public synchronized List<User> delete(List<String> names) {
        List<User> out = new ArrayList<>();
        for (String n : names) {
            User u = users.remove(n);
            if (u != null) {
                out.add(u);
            }
        }
        if (!out.isEmpty()) {
            changed();
        }
        return out;
    }

    /**
     * Whether new rules may revoke channels a subscriber of the user holds (Redis's
     * ACLKillPubsubClientsIfNeeded): false when a selector allows all channels, or when every old
     * channel pattern is still listed and no old selector allowed all channels.
     */
    public static boolean channelsMayBeRevoked(UserRules before, UserRules after) {
        List<String> upcoming = new ArrayList<>();
        for (Selector s : after.selectors) {
            if ((s.flags & Selector.ALLCHANNELS) != 0) {
                return false;
            }
            upcoming.addAll(s.channels);
        }
        for (Selector s : before.selectors) {
            if ((s.flags & Selector.ALLCHANNELS) != 0) {
                return true; // allchannels taken away: any subscription may be one the new lists lack
            }
            for (String c : s.channels) {
                if (!upcoming.contains(c)) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Whether a subscription is still allowed by the rules' channel lists (all selectors together):
     * a pattern subscription must be listed literally, a channel must match a listed pattern.
     */
    public static boolean subscriptionAllowed(UserRules rules, byte[] channel, boolean pattern) {
        for (Selector s : rules.selectors) {
            if ((s.flags & Selector.ALLCHANNELS) != 0) {
                return true;
            }
            for (String c : s.channels) {
                byte[] p = c.getBytes(StandardCharsets.ISO_8859_1);
                if (pattern ? Arrays.equals(p, channel)
                        : Glob.matches(p, 0, p.length, channel, 0, channel.length, false)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** ACL LIST's line of a user. */
    public static String describe(User u) {
        return "user " + u.name() + " " + u.rules.describe();
    }

    /**
     * Replaces every user by {@code loaded} (ACL LOAD, or the start); the default user object stays
     * (sessions hold it) and takes the loaded default's rules, or the initial ones when there is none.
     * Returns the users that were replaced, whose connections are to be closed.
     */
    synchronized List<User> replaceAll(Map<String, UserRules> loaded) {
        List<User> old = new ArrayList<>(users.values());
        old.remove(defaultUser);
        users.clear();
        UserRules d = loaded.get("default");
        defaultUser.rules = (d == null ? defaultRules() : d).seal();
        users.put("default", defaultUser);
        loaded.forEach((name, rules) -> {
            if (!name.equals("default")) {
                users.put(name, new User(name, rules));
            }
        });
        changed();
        return old;
    }

    /** Applies a config file's {@code user} line to the table now (start-up). Returns null or the reason. */
    public synchronized String configure(String name, List<String> ops) {
        if (Selector.hasSpaces(name)) {
            return "Spaces not allowed in ACL usernames";
        }
        User u = users.get(name);
        UserRules r;
        if (u == null) {
            r = newRules();
        } else {
            r = u.rules.copy();
            r.pubsubDefault = pubsubDefault;
            try {
                r.apply("reset");
            } catch (AclRuleException e) {
                throw new IllegalStateException(e);
            }
        }
        for (String op : ops) {
            try {
                r.apply(op);
            } catch (AclRuleException e) {
                return "Error loading ACL rule '" + op + "' for the user named '" + name + "': " + e.getMessage();
            }
        }
        if (u == null) {
            users.put(name, new User(name, r));
        } else {
            u.rules = r.seal();
        }
        return null;
    }

    /**
     * Checks a config file's {@code user <name> <rules...>} line (Redis's ACLAppendUserForLoading): null
     * when it may be loaded at the start, else the reason. Unknown commands are reported at the start.
     */
    public static String checkUserDirective(List<String> words, List<List<String>> earlier) {
        return checkUserDirective(words, earlier, 0);
    }

    private static String checkUserDirective(List<String> words, List<List<String>> earlier, int pubsubDefault) {
        String name = words.get(1);
        for (List<String> e : earlier) {
            if (e.getFirst().equals(name)) {
                return "Error in user declaration '" + name + "': Duplicate user found. A user can only be "
                        + "defined once in config files";
            }
        }
        List<String> ops = AclFile.mergeSelectors(words.subList(2, words.size()));
        if (ops == null) {
            return "Error in user declaration '" + words.get(2 + AclFile.unmatchedSelector(words.subList(2, words.size())))
                    + "': Syntax error";
        }
        UserRules r = new UserRules(pubsubDefault);
        for (String op : ops) {
            try {
                r.apply(op);
            } catch (AclRuleException e) {
                if (!e.unknownName) {
                    return "Error in user declaration '" + op + "': " + e.getMessage();
                }
            }
        }
        return null;
    }

    /**
     * At the start: the config file's users, or the ACL file (not both, as Redis refuses).
     *
     * @throws IllegalStateException with the reason the server must not start
     */
    public void loadAtStartup(List<List<String>> directives, String aclfile, Path file) {
        if (!aclfile.isEmpty() && !directives.isEmpty()) {
            throw new IllegalStateException("Configuring Redis with users defined in redis.conf and at the same "
                    + "setting an ACL file path is invalid. This setup is very likely to lead to configuration errors "
                    + "and security holes, please define either an ACL file or declare users directly in your "
                    + "redis.conf, but not both.");
        }
        for (List<String> d : directives) {
            List<String> ops = AclFile.mergeSelectors(d.subList(1, d.size()));
            String err = configure(d.getFirst(), ops == null ? List.of() : ops);
            if (err != null) {
                throw new IllegalStateException(err);
            }
        }
        if (!aclfile.isEmpty()) {
            try {
                AclFile.load(this, file, aclfile);
            } catch (IllegalArgumentException e) {
                throw new IllegalStateException("Aborting Redis startup because of ACL errors: " + e.getMessage());
            }
        }
    }

    /**
     * Redis's ACLCheckAllUserCommandPerm for the request in {@code args} from index {@code base} (0 in
     * dispatch; ACL DRYRUN passes its own arguments): 0 when some selector allows it, else the reason
     * ({@link #DENIED_CMD}...) in the high int and the denied argument's index (from {@code base}) in
     * the low int.
     */
    public static long check(UserRules rules, int id, CommandSpec spec, boolean noAuth, Args args, int base) {
        if (rules.unrestricted) {
            return 0;
        }
        int[] keys = null;
        boolean keysComputed = false;
        long relevant = Selector.denied(DENIED_CMD, 0);
        for (Selector s : rules.selectors) {
            if (!keysComputed && (s.flags & Selector.ALLKEYS) == 0) {
                keysComputed = true;
                keys = keysOf(spec, args, base);
            }
            long r = s.check(id, noAuth, args, base, keys);
            if (r == 0) {
                return 0;
            }
            int reason = (int) (r >>> 32);
            int relevantReason = (int) (relevant >>> 32);
            if (reason > relevantReason || (reason == relevantReason && (int) r > (int) relevant)) {
                relevant = r;
            }
        }
        return relevant;
    }

    /**
     * Like {@link #check} for the command {@code id} (no key arguments counted) run on every key that starts
     * with {@code prefix}, needing the permissions {@code needs} ({@link KeyPositions#ACL_READ}...) on each: 0
     * when one selector allows the command and covers them all ({@code allkeys}, or a pattern such as
     * {@code prefix*}, see {@link Glob#coversEveryExtension}), else {@link #DENIED_CMD} when no selector allows
     * the command, {@link #DENIED_KEY} otherwise (each in the high int, as {@link #check} returns them).
     */
    public static long checkPrefix(UserRules rules, int id, boolean noAuth, Args args, byte[] prefix, int needs) {
        if (rules.unrestricted) {
            return 0;
        }
        long result = Selector.denied(DENIED_CMD, 0);
        for (Selector s : rules.selectors) {
            if (s.check(id, noAuth, args, 0, null) != 0) {
                continue;
            }
            if ((s.flags & Selector.ALLKEYS) != 0) {
                return 0;
            }
            for (Selector.KeyPattern p : s.patterns) {
                if ((p.perms & needs) == needs && Glob.coversEveryExtension(p.bytes, prefix)) {
                    return 0;
                }
            }
            result = Selector.denied(DENIED_KEY, 1);
        }
        return result;
    }

    private static int[] keysOf(CommandSpec spec, Args args, int base) {
        if (!KeyPositions.hasAclKeys(spec)) {
            return null;
        }
        try {
            int[] keys = KeyPositions.aclKeys(spec, base == 0 ? args : slice(args, base));
            if (base != 0) {
                for (int i = 0; i < keys.length; i += 2) {
                    keys[i] += base;
                }
            }
            return keys;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }

    /**
     * Whether the user may read any key (Redis's check of the key "*" against its patterns, with the read
     * permission: {@code %W~*} is not enough): SORT's BY and GET patterns name keys that cannot be checked
     * before they are read.
     */
    public static boolean fullKeyAccess(UserRules rules) {
        if (rules.unrestricted) {
            return true;
        }
        byte[] star = {'*'};
        for (Selector s : rules.selectors) {
            if ((s.flags & Selector.ALLKEYS) != 0) {
                return true;
            }
            for (Selector.KeyPattern p : s.patterns) {
                if ((p.perms & KeyPositions.ACL_READ) != 0 && Glob.matches(p.bytes, 0, p.bytes.length, star, 0, 1, false)) {
                    return true;
                }
            }
        }
        return false;
    }

    static Args slice(Args args, int base) {
        byte[][] argv = new byte[args.count() - base][];
        for (int i = 0; i < argv.length; i++) {
            argv[i] = args.copy(base + i);
        }
        return Args.of(argv);
    }
}
