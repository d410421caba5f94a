package dev.spinel.server.engine;

import java.util.ArrayList;
import java.util.LinkedList;
import java.util.List;

/**
 * ACL LOG: the denied authentications (Redis's acl.c log; the only denial Spinel has, with the default user
 * allowed everything). Like Redis, an entry matching the newest ones by reason, context, object and user
 * within 60 seconds is counted again instead of added, and the log keeps {@code acllog-max-len} entries.
 *
 * <p>Thread-safety: synchronized; entries are added on failures only.
 */
public final class AclLog {
    private static final long GROUPING_MILLIS = 60_000;

    /** One entry; {@code clientInfo} is the client's CLIENT LIST line when it last matched. */
    public static final class Entry {
        public final String reason;
        public final String context;
        public final String object;
        public final String username;
        long count;
        long createdMillis;
        String clientInfo;

        Entry(String reason, String context, String object, String username) {
            this.reason = reason;
            this.context = context;
            this.object = object;
            this.username = username;
        }

        public long count() {
            return count;
        }

        public long createdMillis() {
            return createdMillis;
        }

        public String clientInfo() {
            return clientInfo;
        }
    }

    private final LinkedList<Entry> entries = new LinkedList<>();

    /** Records a denied authentication of {@code username} by command {@code object} (as typed). */
    public synchronized void authDenied(String context, String object, String username, String clientInfo, long maxLen) {
        long now = System.currentTimeMillis();
        Entry match = null;
        int looked = 0;
        for (Entry e : entries) {
            if (looked++ == 10) { // Redis compares with the 10 newest entries only
                break;
            }
            if (e.reason.equals("auth") && e.context.equals(context) && e.object.equals(object)
                    && e.username.equals(username) && now - e.createdMillis < GROUPING_MILLIS) {
                match = e;
                break;
            }
        }
        if (match != null) {
            entries.remove(match);
        } else {
            match = new Entry("auth", context, object, username);
        }
        match.count++;
        match.createdMillis = now;
        match.clientInfo = clientInfo;
        entries.addFirst(match);
        while (entries.size() > maxLen) {
            entries.removeLast();
        }
    }

    /** The newest {@code count} entries, newest first. */
    public synchronized List<Entry> newest(long count) {
        List<Entry> out = new ArrayList<>();
        for (Entry e : entries) {
            if (out.size() >= count) {
                break;
            }
            out.add(e);
        }
        return out;
    }

    public synchronized void reset() {
        entries.clear();
    }
}
