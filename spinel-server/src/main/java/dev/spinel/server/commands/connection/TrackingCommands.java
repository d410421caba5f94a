package dev.spinel.server.commands.connection;

import dev.spinel.protocol.Args;
import dev.spinel.protocol.ClientText;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Session;
import dev.spinel.server.engine.tracking.Tracking;
import dev.spinel.server.engine.tracking.TrackingState;
import dev.spinel.server.errors.Errors;
import dev.spinel.server.errors.RedisError;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Client-side caching: CLIENT TRACKING, CLIENT CACHING, CLIENT GETREDIR, CLIENT TRACKINGINFO. The
 * tracking table and invalidation delivery are in {@link Tracking}.
 * Registered after {@link ClientCommands}, which creates the CLIENT container.
 */
public final class TrackingCommands {
    private TrackingCommands() {
    }

    public static void register(CommandTable t) {
        t.registerSub("client", "tracking", TrackingCommands::tracking);
        t.registerSub("client", "caching", TrackingCommands::caching);
        t.registerSub("client", "getredir", TrackingCommands::getredir);
        t.registerSub("client", "trackinginfo", TrackingCommands::trackinginfo);
    }

    // CLIENT TRACKING <ON | OFF> [REDIRECT clientid] [PREFIX prefix [PREFIX prefix ...]] [BCAST] [OPTIN] [OPTOUT] [NOLOOP]
    static void tracking(Session s, Args a) {
        boolean on;
        if (a.is(2, "ON")) {
            on = true;
        } else if (a.is(2, "OFF")) {
            on = false;
        } else {
            throw Errors.SYNTAX;
        }
        long redirect = 0;
        boolean bcast = false;
        boolean optin = false;
        boolean optout = false;
        boolean noloop = false;
        List<byte[]> prefixes = new ArrayList<>();
        for (int i = 3; i < a.count(); i++) {
            boolean more = i + 1 < a.count();
            if (a.is(i, "REDIRECT") && more) {
                if (redirect != 0) {
                    throw new RedisError("ERR A client can only redirect to a single other client");
                }
                try {
                    redirect = a.parseLong(++i);
                } catch (NumberFormatException e) {
                    throw Errors.NOT_INTEGER;
                }
                if (redirect != s.id() && s.engine().clients().get(redirect) == null) {
                    throw new RedisError("ERR The client ID you want redirect to does not exist");
                }
            } else if (a.is(i, "BCAST")) {
                bcast = true;
            } else if (a.is(i, "OPTIN")) {
                optin = true;
            } else if (a.is(i, "OPTOUT")) {
                optout = true;
            } else if (a.is(i, "NOLOOP")) {
                noloop = true;
            } else if (a.is(i, "PREFIX") && more) {
                prefixes.add(a.copy(++i));
            } else {
                throw Errors.SYNTAX;
            }
        }
        if (!on) {
            s.engine().tracking().disable(s);
            s.out().ok();
            return;
        }
        // Redis 7.0's order of checks: PREFIX without BCAST, a BCAST switch, OPTIN/OPTOUT with BCAST, both.
        TrackingState current = s.tracking();
        if (!bcast && !prefixes.isEmpty()) {
            throw new RedisError("ERR PREFIX option requires BCAST mode to be enabled");
        }
        if (current != null && current.bcast() != bcast) {
            throw new RedisError("ERR You can't switch BCAST mode on/off before disabling tracking for this client, "
                    + "and then re-enabling it with a different mode.");
        }
        if ((optin || optout) && bcast) {
            throw new RedisError("ERR OPTIN and OPTOUT are not compatible with BCAST");
        }
        if (optin && optout) {
            throw new RedisError("ERR You can't specify both OPTIN mode and OPTOUT mode");
        }
        if (current != null && ((optin && current.optout()) || (optout && current.optin()))) {
            throw new RedisError("ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, "
                    + "and then re-enabling it with a different mode.");
        }
        List<byte[]> all = new ArrayList<>(current != null ? current.prefixes() : List.of());
        for (int i = 0; i < prefixes.size(); i++) {
            byte[] p = prefixes.get(i);
            for (int j = 0; j < prefixes.size(); j++) {
                if (j != i && overlaps(p, prefixes.get(j))) {
                    throw new RedisError("ERR Prefix '" + str(p) + "' overlaps with another provided prefix '"
                            + str(prefixes.get(j)) + "'. Prefixes for a single client must not overlap.");
                }
            }
            for (byte[] q : all) {
                if (overlaps(p, q)) {
                    throw new RedisError("ERR Prefix '" + str(p) + "' overlaps with an existing prefix '" + str(q)
                            + "'. Prefixes for a single client must not overlap.");
                }
            }
        }
        all.addAll(prefixes);
        if (bcast && prefixes.isEmpty() && all.stream().noneMatch(q -> q.length == 0)) {
            all.add(new byte[0]); // BCAST without PREFIX is the prefix "", listed as such by TRACKINGINFO (as Redis)
        }
        s.engine().tracking().enable(s, new TrackingState(redirect, bcast, optin, optout, noloop, all));
        s.out().ok();
    }

    // CLIENT CACHING <YES | NO>
    static void caching(Session s, Args a) {
        TrackingState t = s.tracking();
        if (t == null) {
            throw new RedisError("ERR CLIENT CACHING can be called only when the client is in tracking mode with "
                    + "OPTIN or OPTOUT mode enabled");
        }
        if (a.is(2, "YES")) {
            if (!t.optin()) {
                throw new RedisError("ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.");
            }
            t.caching(Boolean.TRUE);
        } else if (a.is(2, "NO")) {
            if (!t.optout()) {
                throw new RedisError("ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.");
            }
            t.caching(Boolean.FALSE);
        } else {
            throw Errors.SYNTAX;
        }
        s.out().ok();
    }

    // CLIENT GETREDIR
    static void getredir(Session s, Args a) {
        TrackingState t = s.tracking();
        s.out().integer(t == null ? -1 : t.redirect());
    }

    // CLIENT TRACKINGINFO
    static void trackinginfo(Session s, Args a) {
        TrackingState t = s.tracking();
        s.out().map(3);
        s.out().bulk("flags");
        if (t == null) {
            s.out().set(1).bulk("off");
        } else {
            List<String> flags = new ArrayList<>();
            flags.add("on");
            if (t.bcast()) {
                flags.add("bcast");
            }
            if (t.optin()) {
                flags.add("optin");
                if (Boolean.TRUE.equals(t.cachingPeek())) {
                    flags.add("caching-yes");
                }
            }
            if (t.optout()) {
                flags.add("optout");
                if (Boolean.FALSE.equals(t.cachingPeek())) {
                    flags.add("caching-no");
                }
            }
            if (t.noloop()) {
                flags.add("noloop");
            }
            if (t.redirect() > 0 && s.engine().clients().get(t.redirect()) == null) {
                flags.add("broken_redirect");
            }
            s.out().set(flags.size());
            for (String f : flags) {
                s.out().bulk(f);
            }
        }
        s.out().bulk("redirect");
        s.out().integer(t == null ? -1 : t.redirect());
        s.out().bulk("prefixes");
        // Redis keeps a client's prefixes in a radix tree: they are listed in byte order.
        List<byte[]> p = new ArrayList<>(t == null ? List.of() : t.prefixes());
        p.sort(Arrays::compareUnsigned);
        s.out().array(p.size());
        for (byte[] x : p) {
            s.out().bulk(x);
        }
    }

    private static boolean overlaps(byte[] a, byte[] b) {
        int n = Math.min(a.length, b.length);
        for (int i = 0; i < n; i++) {
            if (a[i] != b[i]) {
                return false;
            }
        }
        return true;
    }

    /** A prefix as Redis's %s quotes it: its bytes up to a NUL. */
    private static String str(byte[] b) {
        return ClientText.cString(b, 0, b.length);
    }
}
