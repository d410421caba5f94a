package dev.spinel.server.commands;

import dev.spinel.protocol.Args;
import dev.spinel.server.SpinelServer;
import dev.spinel.server.engine.CommandTable;
import dev.spinel.server.engine.Session;
import dev.spinel.store.Segment;

/** Generic key commands (Redis's db.c and expire.c): DEL, EXISTS, EXPIRE, TTL, SCAN, ... */
public final class KeyCommands {
    private KeyCommands() {
    }

    public static void register(CommandTable t, SpinelServer server) {
        t.register("del", KeyCommands::del);
    }

    // DEL key [key ...]
    static void del(Session s, Args a) {
        long n = 0;
        for (int i = 1; i < a.count(); i++) {
            int h = Keys.hash(a, i);
            Segment seg = s.db().segment(h);
            seg.lock();
            try {
                if (Keys.write(s, seg, a, i, h) != null && seg.remove(a.buffer(), a.offset(i), a.length(i), h)) {
                    n++;
                }
            } finally {
                seg.unlock();
            }
        }
        if (n > 0) {
            s.dirty(n);
        }
        s.out().integer(n);
    }
}
