package dev.spinel.server.acl;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.Iterator;
import java.util.List;

/**
 * ACL LOG: denied commands, keys and channels and failed AUTHs, newest first. An event like one of
 * the ten newest entries (same reason, context, object and user, within 60 s) bumps that entry's
 * count and moves it to the front, as in Redis.
 *
 * <p>Thread-safety: synchronized; written only when something is denied.
 */
public final class AclLog {
    public static final String TOPLEVEL = "toplevel";
    public static final String MULTI = "multi";
    public static final String LUA = "lua";
    private static final long GROUPING_MS = 60_000;

    /** One entry; count, time and client info change when a like event is grouped into it. */
    public static final class Entry {
        public long count = 1;
        public final String reason;
        public final String context;
        public final String object;
        public final String username;
        public long createdAt;
        public String clientInfo;

        Entry(String reason, String context, String object, String username, long createdAt, String clientInfo) {
            this.reason = reason;
            this.context = context;
            this.object = object;
            this.username = username;
            this.createdAt = createdAt;
            this.clientInfo = clientInfo;
        }
    }

    private final Deque<Entry> entries = new ArrayDeque<>();

    public synchronized void add(String reason, String context, String object, String username, String clientInfo,
                                 long maxLen) {
        long now = System.currentTimeMillis();
        int scan = 10;
        for (Iterator<Entry> it = entries.iterator(); scan-- > 0 && it.hasNext(); ) {
            Entry e = it.next();
            if (e.reason.equals(reason) && e.context.equals(context) && Math.abs(e.createdAt - now) <= GROUPING_MS
                    && e.object.equals(object) && e.username.equals(username)) {
                it.remove();
                e.count++;
                e.createdAt = now;
                e.clientInfo = clientInfo;
                entries.addFirst(e);
                return;
            }
        }
        entries.addFirst(new Entry(reason, context, object, username, now, clientInfo));
        while (entries.size() > maxLen) {
            entries.removeLast();
        }
    }

    /** The newest {@code count} entries (copies of their fields as they are now). */
    public synchronized List<Entry> newest(long count) {
        List<Entry> out = new ArrayList<>();
        for (Entry e : entries) {
            if (out.size() >= count) {
                break;
            }
            Entry c = new Entry(e.reason, e.context, e.object, e.username, e.createdAt, e.clientInfo);
            c.count = e.count;
            out.add(c);
        }
        return out;
    }

    public synchronized void reset() {
        entries.clear();
    }
}
