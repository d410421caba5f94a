package dev.spinel.server.commands.hash;

import dev.spinel.protocol.Args;
import dev.spinel.server.commands.key.Keys;
import dev.spinel.server.engine.Session;
import dev.spinel.server.errors.Errors;
import dev.spinel.store.Entry;
import dev.spinel.store.Segment;
import dev.spinel.store.types.HashValue;

/** Helpers shared by the hash commands. Callers hold the key's segment lock. */
final class Hashes {
    private Hashes() {
    }

    /** The hash of an entry, or WRONGTYPE. */
    static HashValue hash(Entry e) {
        if (e.value() instanceof HashValue h) {
            return h;
        }
        throw Errors.WRONGTYPE;
    }

    /** The hash at key argument 1 for a write, created (and stored) when absent; WRONGTYPE otherwise. */
    static HashValue getOrCreate(Session s, Segment seg, Args a, int hash) {
        Entry e = Keys.write(s, seg, a, 1, hash);
        if (e != null) {
            return hash(e);
        }
        HashValue h = new HashValue(s.engine().config().collectionSettings);
        seg.insert(a.copy(1), hash, h, -1);
        return h;
    }
}
