package dev.spinel.server.engine.tracking;

import java.util.ArrayList;
import java.util.List;

/**
 * A session's CLIENT TRACKING settings. Not thread-safe: written on the session's loop; read by
 * other loops only through the immutable-after-enable fields (a new state replaces the old).
 */
public final class TrackingState {
    final long redirect;
    final boolean bcast;
    final boolean optin;
    final boolean optout;
    final boolean noloop;
    final List<byte[]> prefixes;
    /** CLIENT CACHING yes/no for the next command (OPTIN/OPTOUT); reset after each other command. */
    Boolean caching;

    public TrackingState(long redirect, boolean bcast, boolean optin, boolean optout, boolean noloop, List<byte[]> prefixes) {
        this.redirect = redirect;
        this.bcast = bcast;
        this.optin = optin;
        this.optout = optout;
        this.noloop = noloop;
        this.prefixes = new ArrayList<>(prefixes);
    }

    public long redirect() {
        return redirect;
    }

    public boolean bcast() {
        return bcast;
    }

    public boolean optin() {
        return optin;
    }

    public boolean optout() {
        return optout;
    }

    public boolean noloop() {
        return noloop;
    }

    public List<byte[]> prefixes() {
        return prefixes;
    }

    public void caching(Boolean yes) {
        this.caching = yes;
    }

    /** The CLIENT CACHING choice pending for the next command, or {@code null}. */
    public Boolean cachingPeek() {
        return caching;
    }

    /** Whether the current command's reads should be remembered (default mode, OPTIN, OPTOUT). */
    boolean tracksReads() {
        if (bcast) {
            return false;
        }
        if (optin) {
            return Boolean.TRUE.equals(caching);
        }
        if (optout) {
            return !Boolean.FALSE.equals(caching);
        }
        return true;
    }
}
