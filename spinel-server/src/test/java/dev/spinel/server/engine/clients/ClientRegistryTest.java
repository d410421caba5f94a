package dev.spinel.server.engine.clients;

import dev.spinel.protocol.ReplyBuffer;
import dev.spinel.server.engine.ports.ClientConnection;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/** The registry finds clients by id, lists them in id order, and keys each by itself, not by a boxed id. */
class ClientRegistryTest {
    /** Equality by identity, as a session's. */
    private static final class Fake implements Client {
        private final long id;

        Fake(long id) {
            this.id = id;
        }

        @Override public long id() { return id; }
        @Override public ClientConnection connection() { return null; }
        @Override public ReplyBuffer out() { return null; }
        @Override public String name() { return ""; }
        @Override public int dbIndex() { return 0; }
        @Override public void deliver(Runnable write) { write.run(); }
    }

    @Test
    void findsListsAndRemovesByIdWithEachClientItsOwnKey() throws Exception {
        ClientRegistry<Fake> r = new ClientRegistry<>();
        Fake a = new Fake(r.nextId());
        Fake b = new Fake(r.nextId());
        Fake c = new Fake(r.nextId());
        r.add(c);
        r.add(a);
        r.add(b);
        assertEquals(List.of(a, b, c), new ArrayList<>(r.all()));
        assertSame(b, r.get(b.id()));
        assertNull(r.get(99));
        List<Fake> removed = new ArrayList<>();
        r.onRemove(x -> removed.add((Fake) x));
        r.remove(new Fake(b.id())); // an equal id is not the registered client: nothing leaves
        r.remove(b);
        r.remove(b);
        assertEquals(List.of(b), removed);
        assertEquals(List.of(a, c), new ArrayList<>(r.all()));
        assertEquals(2, r.size());

        Field f = ClientRegistry.class.getDeclaredField("sessions");
        f.setAccessible(true);
        for (Map.Entry<?, ?> e : ((Map<?, ?>) f.get(r)).entrySet()) {
            assertSame(e.getValue(), e.getKey(), "a client is keyed by itself, not by a boxed id");
        }
    }
}
